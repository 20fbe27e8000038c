// `--accelerate_config FILE`: an `accelerate config` YAML file (what `accelerate launch
// --config_file` reads) mapped onto runner's arguments: mixed_precision, use_cpu, the
// deepspeed_config block (zero_stage, offloads, gradient accumulation and clipping, or
// deepspeed_config_file) and the fsdp_config block; num_processes / num_machines are
// checked against the world the run was started in (`runner launch` takes its rank count
// from num_processes). Keys that cannot change a CPU/CUDA run (tpu_*, main_process_ip, ...)
// are accepted; those that would (fp8, XLA, Megatron-LM, ...) are refused; unknown keys
// are errors, as accelerate's own loader makes them.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/core/training_args.h"

namespace runner::config {

struct AccelerateConfig {
  std::string path;
  // Training arguments the file sets ("bf16", "deepspeed", "fsdp", "fsdp_config", "use_cpu").
  nlohmann::json args = nlohmann::json::object();
  std::optional<int> num_processes, num_machines;
  std::vector<std::string> warnings;  // settings without effect here
};

// Reads and checks the file; ArgumentError naming the file and key on bad input.
AccelerateConfig read_accelerate_config(const std::string& path);

// Fills in the arguments the recipe and command line left at their defaults (HF: explicit
// TrainingArguments win over the accelerate environment); a value they set differently is
// an error naming both. Returns one log line saying what was taken from the file.
std::string apply_accelerate_config(const AccelerateConfig& config, TrainingArguments& args);

}  // namespace runner::config
