// One device per process, chosen once, with HF TrainingArguments semantics: cuda:<local_rank>
// when CUDA is available (CUDA_VISIBLE_DEVICES is honoured by the CUDA runtime itself), the
// CPU when it is not or when use_cpu is set. Ranks of a node get distinct GPUs; when there
// are more ranks than GPUs they share them round-robin (a warning says so). Unlike HF, a
// single process never spreads a batch over several GPUs (no nn.DataParallel): run one
// process per GPU instead.
#pragma once
#include <string>

#include <ATen/ATen.h>

#include "runtime/core/training_args.h"
#include "runtime/models/module.h"

namespace runner::device {

struct DevicePlan {
  at::Device device{at::kCPU};
  // Batches are collated into page-locked host memory and copied without blocking the host
  // (dataloader_pin_memory, on CUDA only: pinning needs a GPU).
  bool pin_memory = false;
  bool is_cuda() const { return device.is_cuda(); }
};

// Whether this process can use a GPU (a CUDA LibTorch that sees at least one device).
bool cuda_available();
int cuda_device_count();

// Picks the device and checks the precision flags against it (fp16 and tf32 need CUDA);
// makes the device current for this thread and applies tf32 and full_determinism's process
// settings (deterministic kernels; on CUDA cuBLAS's workspace and cuDNN's algorithms). Throws
// ArgumentError naming the argument.
DevicePlan resolve_device(const TrainingArguments& args, int local_rank);

// Moves a batch to the plan's device (pinned host memory first, then a non-blocking copy).
models::TensorMap to_device(const models::TensorMap& batch, const DevicePlan& plan);

// "cpu" or "cuda:0".
std::string device_string(const at::Device& device);

}  // namespace runner::device
