#include "runtime/cli/version.h"

#include <torch/version.h>

#include <ATen/Context.h>

#include "runtime/dist/world.h"
#include "runtime/device/gpu_info.h"

namespace runner::cli {

std::string version_report(const std::string& runner_version) {
  std::string out = "runner " + runner_version + "\n";
  out += "LibTorch " + std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR) + "." +
         std::to_string(TORCH_VERSION_PATCH) + (at::hasCUDA() ? " with CUDA" : " (CPU only)") + "\n";
  const std::string cuda = device::cuda_version();
  if (cuda.empty()) {
    out += "CUDA: runner built without its CUDA code";
    out += at::hasCUDA() ? " (LibTorch's CUDA backends still run)\n" : "\n";
  } else {
    out += "CUDA " + cuda + "\n";
  }
  const auto gpus = device::cuda_device_descriptions();
  if (gpus.empty()) out += "GPUs: none visible (training runs on the CPU)\n";
  for (size_t i = 0; i < gpus.size(); ++i) out += "GPU " + std::to_string(i) + ": " + gpus[i] + "\n";
  out += dist::nccl_version() + "\n";
  out += dist::mpi_version() + "\n";
  return out;
}

}  // namespace runner::cli
