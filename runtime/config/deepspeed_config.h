// A DeepSpeed configuration (`deepspeed = "ds_config.json"` or a Lua table) read the way
// HF's Trainer integration reads it: every key is checked against the keys DeepSpeed knows
// (a typo is an error naming it), "auto" values are filled from TrainingArguments, and
// explicit values that contradict TrainingArguments are errors naming both values (HF's
// fill_match). The result drives the same engine as DDP/FSDP.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/core/training_args.h"
#include "runtime/config/loss_scaler_config.h"
#include "runtime/dist/zero3_options.h"

namespace runner::config {

struct DeepSpeedSettings {
  int stage = 0;
  int64_t reduce_bucket_size = 500000000;     // elements
  int64_t allgather_bucket_size = 500000000;  // elements
  bool offload_optimizer = false;             // device "cpu": host memory already, on CPU builds
  // offload_optimizer.pin_memory (DeepSpeed's default false), or the legacy cpu_offload_use_pin_memory.
  bool pin_optimizer_offload = false;
  // Stage 3: stage3_param_persistence_threshold, stage3_prefetch_bucket_size (both
  // directions), stage3_max_live_parameters, offload_param and its pin_memory.
  dist::Zero3Options zero3 = deepspeed_zero3_defaults();
  // The config's scheduler block as a factor of learning_rate per optimizer step, given
  // the run's total steps; empty = the Trainer's own lr_scheduler_type.
  std::function<double(int64_t step, int64_t max_steps)> lr_factor;
  // The fp16 block's loss scaling (loss_scale 0 = dynamic, initial_scale_power,
  // loss_scale_window, hysteresis, consecutive_hysteresis, min_loss_scale), DeepSpeed's
  // defaults for keys it leaves out.
  LossScalerConfig loss_scaler = deepspeed_loss_scaler_defaults();
  nlohmann::json resolved;  // the configuration with "auto" filled in (logged, saved)
  std::vector<std::string> warnings;  // keys that have no effect, deprecated spellings

  static dist::Zero3Options deepspeed_zero3_defaults() {
    dist::Zero3Options z;
    z.pin_offload = false;  // DeepSpeed's offload pin_memory default
    return z;
  }
  static LossScalerConfig deepspeed_loss_scaler_defaults() {
    LossScalerConfig c;
    c.growth_interval = 1000;
    c.hysteresis = 2;
    c.min_scale = 1.0;
    return c;
  }
};

// `config`: a JSON object, or a string naming a JSON file. Errors are ArgumentErrors
// located at the file (or "args.deepspeed"). `hidden_size`: the model's (config.json's
// hidden_size / n_embd), which HF's integration fills the size keys' "auto" from
// (reduce_bucket_size = h², stage3_prefetch_bucket_size = 0.9·h², stage3_param_persistence_
// threshold = 10·h); 0: the model has none ("auto" there is an error, as in HF); -1: no model
// yet (model_init): DeepSpeed's defaults, with a warning.
DeepSpeedSettings read_deepspeed_config(const nlohmann::json& config, const TrainingArguments& args, int world_size,
                                        int64_t hidden_size = -1);

// fp16's loss scaler for this run: the DeepSpeed config's fp16 block when args.deepspeed is
// set, else PyTorch GradScaler's defaults (what HF uses through Accelerate).
LossScalerConfig resolve_loss_scaler(const TrainingArguments& args, int world_size);

}  // namespace runner::config
