// Dynamic loss scaling for fp16 training, with PyTorch GradScaler semantics by default and
// DeepSpeed's fp16 block as options:
//   - the loss is multiplied by `scale` before backward, so small fp16 gradients do not
//     flush to zero; gradients are divided by it again before clipping (unscale);
//   - a step whose gradients hold inf/NaN is skipped (no optimizer or scheduler step) and
//     the scale is multiplied by `backoff` (0.5), at least `min_scale`; with DeepSpeed's
//     `hysteresis` h, the first h-1 overflows in a row only use up the hysteresis;
//   - after `growth_interval` good steps in a row the scale is multiplied by `growth` (2).
// A static scale (DeepSpeed loss_scale > 0) never changes; a step with non-finite gradients
// is still skipped, as DeepSpeed does.
#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/config/loss_scaler_config.h"

namespace runner::train {

using config::LossScalerConfig;


class LossScaler {
 public:
  explicit LossScaler(LossScalerConfig config = {});
  double scale() const { return scale_; }
  // After unscaling: `finite` = every gradient was finite. Returns whether the optimizer
  // step should run, and updates the scale.
  bool update(bool finite);
  int64_t skipped_steps() const { return skipped_; }
  const LossScalerConfig& config() const { return config_; }

  // Checkpoint state (scaler.json): the scale and the counters, so a resumed run continues
  // with the same scale as the uninterrupted one.
  nlohmann::json state_dict() const;
  void load_state_dict(const nlohmann::json& state);

 private:
  LossScalerConfig config_;
  double scale_;
  int64_t good_steps_ = 0;  // finite steps since the last overflow or growth
  int hysteresis_left_;
  int64_t skipped_ = 0;
};

}  // namespace runner::train
