// Which data-parallel mode a run uses, from TrainingArguments: plain DDP when several ranks
// run without sharding options; ZeRO stages from a DeepSpeed configuration; FSDP sharding
// strategies mapped onto the same engine (NO_SHARD = DDP, SHARD_GRAD_OP = ZeRO-2,
// FULL_SHARD = ZeRO-3). A DeepSpeed optimizer block selects AdamW in `args`.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/core/training_args.h"
#include "runtime/dist/data_parallel.h"

namespace runner::config {

struct ParallelPlan {
  dist::ParallelConfig config;
  std::vector<std::string> warnings;  // configuration keys with no effect, deprecated spellings
  nlohmann::json deepspeed;           // the DeepSpeed config with "auto" filled in (null without one)
  // A DeepSpeed scheduler block: factor of learning_rate at (step, max_steps); empty without.
  std::function<double(int64_t, int64_t)> lr_factor;
};

// `hidden_size`: the model's, for a DeepSpeed config's "auto" sizes (read_deepspeed_config).
ParallelPlan resolve_parallel(TrainingArguments& args, int world_size, int num_nodes = 1, int64_t hidden_size = -1);

}  // namespace runner::config
