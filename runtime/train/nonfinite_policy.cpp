// nonfinite_policy: what a step with a NaN/Inf gradient norm does (a NaN loss makes the norm
// NaN). Not under fp16, whose loss scaler already skips overflowing steps.
#include <cmath>

#include "runtime/core/errors.h"
#include "runtime/log/log.h"
#include "runtime/train/trainer.h"

namespace runner::train {

bool Trainer::nonfinite_step_allowed(const at::Tensor& grad_norm) {
  // Reading the norm waits for the device, so the default "log" (HF: train on) never does.
  if (args_.nonfinite_policy == "log" || std::isfinite(grad_norm.item<double>())) return true;
  const std::string what = "step " + std::to_string(state_.global_step + 1) + ": the gradient norm is not finite (a NaN/Inf loss or gradient)";
  if (args_.nonfinite_policy == "stop") {
    dp_->zero_grad();
    save_checkpoint();  // the weights of the last good step
    throw HookError(what + "; stopped (nonfinite_policy = \"stop\"); " + args_.output_dir + "/checkpoint-" +
                    std::to_string(state_.global_step) + " holds the last good step");
  }
  log::warn(what + ": optimizer and scheduler step skipped (nonfinite_policy = \"skip\")");
  return false;
}

}  // namespace runner::train
