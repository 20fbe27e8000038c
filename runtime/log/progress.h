// HF's ProgressCallback / PrinterCallback, as runner shows a run's progress:
// - on a terminal, one bar redrawn in place: percent, step/total, elapsed<ETA, it/s and the
//   last logged loss; during evaluation the evaluation's own bar; log lines above the bar.
// - elsewhere (a file, a pipe, a cluster log), the log lines plus a plain progress line
//   at every tenth of the run (disable_tqdm = true drops those: log lines only).
#pragma once
#include <cstdio>
#include <memory>

#include <string>

#include <nlohmann/json.hpp>

#include "runtime/core/callback.h"

namespace runner::log {

// `terminal`: draw the bar on `out` (stdout in a run); otherwise plain lines go to the log.
std::shared_ptr<Callback> make_progress_callback(bool terminal, bool plain_progress_lines, std::FILE* out = stdout);

// A log event as HF prints it: {'loss': 0.5, 'grad_norm': ..., 'learning_rate': ..., ..., 'epoch': 1.0}.
std::string format_logs(const nlohmann::json& logs);

// "1:02:03" above an hour, else "02:03" (tqdm's form).
std::string format_duration(double seconds);

}  // namespace runner::log
