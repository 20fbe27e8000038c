// report_to integrations, as HF's TensorBoardCallback plus a JSON Lines log:
//   "tensorboard": event files in tensorboard_dir(args) with every logged number under HF's
//                  tag names (train/loss, eval/loss, ...), the arguments as text and hparams;
//   "jsonl":       output_dir/log_history.jsonl, one line per log event (the log_history entry);
//   "all":         both; "none" (the default): neither.
// Only the main process writes.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "runtime/core/callback.h"

namespace runner::train {

// The integrations args.report_to names, validated by TrainingArguments::finalize.
std::vector<std::string> report_integrations(const TrainingArguments& args);

// logging_dir, else $TENSORBOARD_LOGGING_DIR (HF v5), else output_dir/runs/<Mon DD_HH-MM-SS>_<host>
// (HF's default_logdir), decided once per process.
std::string tensorboard_dir(const TrainingArguments& args);

std::vector<std::shared_ptr<Callback>> make_report_callbacks(const TrainingArguments& args);

// HF's rewrite_logs: eval_x -> eval/x, test_x -> test/x, anything else x -> train/x.
std::string tensorboard_tag(const std::string& log_key);

}  // namespace runner::train
