// What runner asks of the CUDA runtime beyond ATen's device-generic API: device names and
// capabilities, the caching allocator's counters (HF's *_mem_gpu_* metrics) and its cache.
// Compiled with RUNNER_WITH_CUDA when LibTorch has CUDA and the toolkit is present; without
// it every query answers "no GPU" (zeros, empty lists), so callers need no #ifdefs.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <ATen/ATen.h>

namespace runner::device {

// (major, minor); (0, 0) without CUDA.
std::pair<int, int> cuda_compute_capability(const at::Device& device);
// "NVIDIA H100 80GB HBM3 (sm_90, 79.1 GiB)" for every visible device.
std::vector<std::string> cuda_device_descriptions();
// The GPU's UUID as hex ("" for a non-CUDA device): the same physical GPU whatever index
// CUDA_VISIBLE_DEVICES gives it in each process, so ranks can tell whether they share one.
std::string cuda_device_uuid(const at::Device& device);
// CUDA runtime version LibTorch was built with ("13.0"), empty without CUDA.
std::string cuda_version();

struct GpuMemory {
  int64_t allocated = 0;  // bytes held by tensors now
  int64_t peak = 0;       // highest `allocated` since the last reset
  int64_t reserved = 0;   // bytes the caching allocator holds from the driver
};
GpuMemory gpu_memory(const at::Device& device);
void reset_gpu_peak(const at::Device& device);
// torch.cuda.empty_cache(): returns cached blocks no tensor uses to the driver.
void empty_gpu_cache();
// torch.cuda.synchronize(): waits for the current device's queued work (the profiler's last kernels).
void synchronize_gpu();
// torch.cuda.set_sync_debug_mode("error" / "default"): while on, any operation that makes the
// host wait for the GPU throws (the tests prove the training step never waits).
void set_gpu_sync_errors(bool on);

}  // namespace runner::device
