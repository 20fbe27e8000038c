// HF step accounting (set_initial_training_values): how many optimizer steps and epochs a
// run has, from the dataset size, batch size, accumulation, epochs and max_steps.
#pragma once
#include <cstdint>
#include <string>

#include "runtime/core/training_args.h"
#include "runtime/models/module.h"

namespace runner::train {

struct TrainingPlan {
  int64_t batches_per_epoch = 0;           // micro-batches the loader yields per epoch
  int64_t update_steps_per_epoch = 0;      // ceil(batches / GA), never 0
  int64_t max_steps = 0;
  int64_t num_train_epochs = 0;            // epochs the loop runs (ceil of a fractional value)
  double num_train_samples = 0;            // for speed metrics
  int64_t total_train_batch_size = 0;      // per device × GA × world size
};

// `batches_per_epoch` counts global batches (each rank's share of one is one micro-batch);
// `world` ranks multiply the total batch size, as HF's total_train_batch_size does.
TrainingPlan plan_training(const TrainingArguments& args, int64_t batches_per_epoch, int64_t dataset_size, int world = 1);

// The "***** Running training *****" banner (info level).
void log_plan(const TrainingPlan& plan, const models::Module& model, const TrainingArguments& args, const std::string& device);

// After the first optimizer step: what this rank holds for training (`state_bytes`: the
// trainable parameters, gradients and optimizer state), the optimizer state on its own
// (`optimizer_bytes`; with LoRA it covers the adapters only) and the frozen weights this
// rank holds (`frozen_bytes`: all of them, or its shards under ZeRO-3).
void log_model_states(int64_t state_bytes, int64_t optimizer_bytes, int64_t frozen_bytes, const std::string& layout);

}  // namespace runner::train
