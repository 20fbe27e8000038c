#include "runtime/device/device.h"

#include <cstdlib>

#include <c10/core/DeviceGuard.h>
#include <torch/version.h>
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 6)
#include <ATen/DeviceAccelerator.h>
#define RUNNER_HAS_ACCELERATOR_API 1
#endif

#include "runtime/core/errors.h"
#include "runtime/log/log.h"
#include "runtime/device/gpu_info.h"

namespace runner::device {

namespace {
// The rank's GPU becomes the current device for the rest of the process (torch.cuda.set_device).
void make_current(const at::Device& device) {
#ifdef RUNNER_HAS_ACCELERATOR_API
  at::accelerator::setDeviceIndex(device.index());
#else
  // LibTorch before 2.6: a guard that is never destroyed, so it never switches back.
  new c10::DeviceGuard(device);  // NOLINT: intentionally leaked
#endif
}
}  // namespace

bool cuda_available() { return at::hasCUDA() && at::getNumGPUs() > 0; }

int cuda_device_count() { return at::hasCUDA() ? static_cast<int>(at::getNumGPUs()) : 0; }

std::string device_string(const at::Device& device) {
  return device.is_cuda() ? "cuda:" + std::to_string(device.has_index() ? device.index() : 0) : "cpu";
}

DevicePlan resolve_device(const TrainingArguments& args, int local_rank) {
  DevicePlan plan;
  const bool cuda = !args.use_cpu && cuda_available();
  if (cuda) {
    // More local ranks than visible GPUs need not mean sharing (srun --gpus-per-task shows
    // each task its own one): the ranks compare their GPUs' UUIDs before choosing a backend.
    const int count = cuda_device_count();
    plan.device = at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(local_rank % count));
    make_current(plan.device);
    plan.pin_memory = args.dataloader_pin_memory;
  }
  const std::string where = args.use_cpu ? "use_cpu is set" : "no GPU is available (this LibTorch " +
                                                                  std::string(at::hasCUDA() ? "sees no CUDA device" : "has no CUDA") + ")";
  if (args.fp16 && !cuda)
    throw ArgumentError("args.fp16: fp16 mixed precision needs a CUDA device, but " + where + "; use bf16 on the CPU");
  if (args.fp16_full_eval && !cuda)
    throw ArgumentError("args.fp16_full_eval: fp16 evaluation needs a CUDA device, but " + where + "; use bf16_full_eval on the CPU");
  if (args.tf32.value_or(false)) {
    if (!cuda) throw ArgumentError("args.tf32: TF32 needs an Ampere or newer CUDA GPU, but " + where);
    if (cuda_compute_capability(plan.device).first < 8)
      throw ArgumentError("args.tf32: TF32 needs an Ampere or newer GPU (compute capability >= 8.0), " + device_string(plan.device) + " is older");
  }
  if (args.full_determinism) {
    // HF's enable_full_determinism: deterministic ATen kernels, and on CUDA a fixed cuBLAS
    // workspace (without it the first GEMM under deterministic algorithms throws; it is read
    // when cuBLAS first sets up, so it is set here, before the model reaches the GPU) and
    // cuDNN's deterministic algorithms without autotuning. A value the user set is kept.
    if (cuda) ::setenv("CUBLAS_WORKSPACE_CONFIG", ":16:8", /*overwrite=*/0);
    at::globalContext().setDeterministicCuDNN(true);
    at::globalContext().setBenchmarkCuDNN(false);
    at::globalContext().setDeterministicAlgorithms(true, /*warn_only=*/false);
  }
  if (cuda && args.tf32) {
    // HF: tf32 = true/false sets both matmul and cuDNN; unset leaves PyTorch's defaults.
    at::globalContext().setAllowTF32CuBLAS(*args.tf32);
    at::globalContext().setAllowTF32CuDNN(*args.tf32);
  }
  return plan;
}

models::TensorMap to_device(const models::TensorMap& batch, const DevicePlan& plan) {
  if (!plan.is_cuda()) return batch;
  models::TensorMap out;
  for (const auto& [name, t] : batch) {
    if (!t.defined() || t.device() == plan.device) {
      out.emplace(name, t);
      continue;
    }
    // A pinned source lets the copy run asynchronously; an unpinned one is copied
    // synchronously by the driver, which is correct too, only slower.
    const bool pinned = t.is_pinned();
    out.emplace(name, t.to(plan.device, /*non_blocking=*/pinned));
  }
  return out;
}

}  // namespace runner::device
