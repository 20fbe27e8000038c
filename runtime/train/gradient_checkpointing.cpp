#include "runtime/train/gradient_checkpointing.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "runtime/core/errors.h"
#include "runtime/log/log.h"
#include "runtime/models/activation_checkpoint.h"

namespace runner::train {

void check_activation_offload(const TrainingArguments& args) {
  if (args.activation_offload && !args.gradient_checkpointing)
    throw ArgumentError("args.activation_offload: needs gradient_checkpointing = true (it moves the inputs checkpointed blocks keep for backward)");
}

void enable_gradient_checkpointing(const TrainingArguments& args, models::Module& model, bool on_cuda) {
  check_activation_offload(args);
  // Test hook, not configuration: RUNNER_TEST_ACTIVATION_OFFLOAD=copy copies CPU tensors
  // too, so a machine without a GPU runs and counts the offload path.
  const char* test = std::getenv("RUNNER_TEST_ACTIVATION_OFFLOAD");
  const bool test_copy = test != nullptr && std::string(test) == "copy";
  models::ActivationOffload offload = models::ActivationOffload::kOff;
  if (args.activation_offload) offload = test_copy ? models::ActivationOffload::kToHostCopyingOnCpu : models::ActivationOffload::kToHost;
  const int n = models::enable_gradient_checkpointing(model, offload);
  if (n == 0)
    throw ArgumentError("args.gradient_checkpointing: this model (" + model.type_name() +
                        ") has no blocks to checkpoint (built-in transformer blocks or nn.Sequential children)");
  const std::string blocks = std::to_string(n);
  log::info("Gradient checkpointing: " + blocks + " modules recompute their activations in backward");
  if (!args.activation_offload) return;
  if (on_cuda)
    log::info("activation_offload: the inputs of " + blocks + " checkpointed blocks go to pinned host memory in forward and come back in backward");
  else if (test_copy)
    log::info("activation_offload: RUNNER_TEST_ACTIVATION_OFFLOAD=copy: the inputs of " + blocks +
              " checkpointed blocks are copied to fresh CPU tensors in forward and back in backward");
  else
    log::warn("activation_offload has no effect on the CPU (the blocks' inputs already are in host memory)");
}

void OffloadReport::start(const TrainingArguments& args) {
  pending_ = args.activation_offload;
  start_bytes_ = models::offloaded_bytes();
}

void OffloadReport::step_done(int64_t global_step) {
  if (!pending_) return;
  pending_ = false;
  const int64_t bytes = models::offloaded_bytes() - start_bytes_;
  char mib[32];
  std::snprintf(mib, sizeof mib, "%.1f", static_cast<double>(bytes) / (1 << 20));
  log::info("activation_offload: step " + std::to_string(global_step) + " moved " + std::to_string(bytes) + " bytes (" + mib +
            " MiB) of block inputs to host memory in forward and back in backward");
}

}  // namespace runner::train
