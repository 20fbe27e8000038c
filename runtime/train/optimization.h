// Building the run's Optimization (run_context.h): the optimizer over the trainable
// parameters (create_optimizer) and, once the run's length is known, the schedule.
#pragma once
#include <cstdint>

#include "runtime/train/run_context.h"

namespace runner::train {

// HF create_optimizer: the recipe's create_optimizer hook or the arguments' optim, over the
// trainable parameters in the data-parallel engine's flat layout (a model from_pretrained
// left in its files is read into it here).
void create_optimizer(RunContext& ctx);
// HF create_scheduler: the recipe's hook, a DeepSpeed scheduler block, or lr_scheduler_type.
void create_scheduler(RunContext& ctx, int64_t max_steps);

}  // namespace runner::train
