// auto_find_batch_size: HF retries its whole inner training loop with a smaller batch after
// an out-of-memory error (accelerate's find_executable_batch_size). Here the search runs
// before the first step instead (batch_size_finder.cpp says how).
#pragma once
#include <cstdint>
#include <string>

#include "runtime/train/run_context.h"
#include "runtime/train/step_runner.h"

namespace runner::train {

// The largest per-device batch, halving from per_device_train_batch_size (or a resumed
// checkpoint's: `*start` says which), with which one training micro-step of `train` fits on
// every rank.
int64_t find_batch_size(RunContext& ctx, StepRunner& steps, const data::DatasetPtr& train, const std::string& resume_checkpoint,
                        int64_t* start);

}  // namespace runner::train
