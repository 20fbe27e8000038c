// fp16 loss scaling's settings: PyTorch GradScaler's defaults, or a DeepSpeed config's fp16
// block (deepspeed_config.h). The scaler itself is runtime/train/loss_scaler.h.
#pragma once
#include <cstdint>

namespace runner::config {

struct LossScalerConfig {
  double init_scale = 65536.0;  // 2^16 (PyTorch), 2^initial_scale_power (DeepSpeed)
  double growth = 2.0, backoff = 0.5;
  int64_t growth_interval = 2000;  // PyTorch; DeepSpeed's loss_scale_window (1000)
  int hysteresis = 1;               // PyTorch has none; DeepSpeed's default is 2
  bool consecutive_hysteresis = false;
  double min_scale = 0.0;  // DeepSpeed's min_loss_scale (1)
  bool dynamic = true;     // false: DeepSpeed loss_scale > 0, a fixed scale
};

}  // namespace runner::config
