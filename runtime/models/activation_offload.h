// Activation offload (the runner argument activation_offload): with gradient checkpointing,
// each checkpointed block's own input waits for backward in host memory instead of on the
// device, so the device holds no block boundaries between forward and backward, only the
// block being recomputed. The copies are exact: values are bit-identical to checkpointing
// alone.
#pragma once
#include <cstdint>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

namespace runner::models {

enum class ActivationOffload {
  kOff,
  kToHost,  // CUDA tensors go to pinned host memory; CPU tensors already are in host memory and stay
  // Test switch (RUNNER_TEST_ACTIVATION_OFFLOAD=copy, read by the trainer): CPU tensors are
  // copied too, into fresh unpinned tensors, so a CPU machine runs and counts the same path.
  kToHostCopyingOnCpu,
};

// Whether a checkpoint's input goes to the host: only inputs that require grad. Those are
// the block's own hidden states, made by the previous block and held by nothing but this
// checkpoint. What every block shares (Llama's cos/sin and mask, an encoder's padding mask)
// is the same tensor in each layer, computed without gradients: copying it once per layer
// would multiply host traffic and free nothing, since the model still holds it. (A LoRA
// model's first block gets frozen embeddings, which require no grad, so it keeps its input;
// the later blocks' inputs come from a checkpoint and do require grad.)
bool goes_to_host(const at::Tensor& input, ActivationOffload mode);

// Copy of t in host memory (pinned when t is on CUDA): the copy is queued on the current
// stream without waiting for it. Adds t's size to offloaded_bytes().
at::Tensor to_host(const at::Tensor& t);

// The host copy back on `device` (a fresh tensor on the CPU), again without waiting.
at::Tensor from_host(const at::Tensor& host, c10::Device device);

// Bytes of block inputs copied to host memory since the process started: the trainer logs
// the first step's share, and tests read it. Read on the host, so it costs no device sync.
int64_t offloaded_bytes();

}  // namespace runner::models
