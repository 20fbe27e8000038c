// HF's built-in callbacks: DefaultFlowCallback (when to log / evaluate / save / stop) and
// EarlyStoppingCallback; runtime/log/progress.h has ProgressCallback / PrinterCallback.
#pragma once
#include <memory>

#include "runtime/core/callback.h"

namespace runner::train {

std::shared_ptr<Callback> make_default_flow_callback();

// Stops training when metric_for_best_model has not improved (by more than `threshold`)
// for `patience` evaluations. Its counter is saved in trainer_state.json.
std::shared_ptr<Callback> make_early_stopping_callback(int64_t patience = 1, double threshold = 0.0);


}  // namespace runner::train
