// gradient_checkpointing and activation_offload as the Trainer turns them on (HF's
// model.gradient_checkpointing_enable()), and the log line that shows offload ran.
#pragma once
#include <cstdint>

#include "runtime/core/training_args.h"
#include "runtime/models/module.h"

namespace runner::train {

// activation_offload without gradient_checkpointing is an ArgumentError. Checked once
// gradient_checkpointing has its final value (fsdp_config.activation_checkpointing sets it too).
void check_activation_offload(const TrainingArguments& args);

// Marks the model's blocks for checkpointing, their inputs offloaded with activation_offload
// (to pinned host memory on CUDA; on the CPU only under the test switch
// RUNNER_TEST_ACTIVATION_OFFLOAD=copy), and says so in the log.
void enable_gradient_checkpointing(const TrainingArguments& args, models::Module& model, bool on_cuda);

// With activation_offload, logs after the first optimizer step of a train() how many bytes
// of block inputs it put in host memory (a host-side counter: no device sync).
class OffloadReport {
 public:
  void start(const TrainingArguments& args);
  void step_done(int64_t global_step);

 private:
  bool pending_ = false;
  int64_t start_bytes_ = 0;
};

}  // namespace runner::train
