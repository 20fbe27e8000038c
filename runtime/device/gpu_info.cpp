#include "runtime/device/gpu_info.h"

#include <cstdio>

#ifdef RUNNER_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#endif

namespace runner::device {

#ifdef RUNNER_WITH_CUDA

std::pair<int, int> cuda_compute_capability(const at::Device& device) {
  if (!device.is_cuda() || !at::hasCUDA()) return {0, 0};
  const cudaDeviceProp* p = at::cuda::getDeviceProperties(device.has_index() ? device.index() : 0);
  return {p->major, p->minor};
}

std::string cuda_device_uuid(const at::Device& device) {
  if (!device.is_cuda() || !at::hasCUDA()) return "";
  const cudaDeviceProp* p = at::cuda::getDeviceProperties(device.has_index() ? device.index() : 0);
  std::string hex;
  char byte[3];
  for (int i = 0; i < 16; ++i) {
    std::snprintf(byte, sizeof byte, "%02x", static_cast<unsigned char>(p->uuid.bytes[i]));
    hex += byte;
  }
  return hex;
}

std::vector<std::string> cuda_device_descriptions() {
  std::vector<std::string> out;
  if (!at::hasCUDA()) return out;
  for (int i = 0; i < static_cast<int>(at::getNumGPUs()); ++i) {
    const cudaDeviceProp* p = at::cuda::getDeviceProperties(static_cast<c10::DeviceIndex>(i));
    char buf[640];  // the name is up to 256 bytes
    std::snprintf(buf, sizeof buf, "%s (sm_%d%d, %.1f GiB)", p->name, p->major, p->minor,
                  static_cast<double>(p->totalGlobalMem) / (1024.0 * 1024.0 * 1024.0));
    out.emplace_back(buf);
  }
  return out;
}

std::string cuda_version() {
  const int v = CUDART_VERSION;  // e.g. 13000
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

namespace {
// The caching allocator sizes its per-device tables when CUDA is initialised; reading its
// counters before that indexes an empty table. torch.cuda.memory_stats() initialises first too.
void init_cuda() { at::globalContext().lazyInitDevice(c10::DeviceType::CUDA); }
c10::DeviceIndex index_of(const at::Device& d) { return d.has_index() ? d.index() : c10::cuda::current_device(); }
}  // namespace

GpuMemory gpu_memory(const at::Device& device) {
  if (!device.is_cuda()) return {};
  init_cuda();
  const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(index_of(device));
  constexpr size_t kAll = 0;  // StatType::AGGREGATE
  return {stats.allocated_bytes[kAll].current, stats.allocated_bytes[kAll].peak, stats.reserved_bytes[kAll].current};
}

void reset_gpu_peak(const at::Device& device) {
  if (!device.is_cuda()) return;
  init_cuda();
  c10::cuda::CUDACachingAllocator::resetPeakStats(index_of(device));
}

void empty_gpu_cache() {
  if (!at::hasCUDA()) return;
  init_cuda();
  c10::cuda::CUDACachingAllocator::emptyCache();
}

void synchronize_gpu() {
  if (at::hasCUDA()) c10::cuda::device_synchronize();
}

void set_gpu_sync_errors(bool on) {
  c10::cuda::warning_state().set_sync_debug_mode(on ? c10::cuda::SyncDebugMode::L_ERROR : c10::cuda::SyncDebugMode::L_DISABLED);
}

#else

std::pair<int, int> cuda_compute_capability(const at::Device&) { return {0, 0}; }
std::vector<std::string> cuda_device_descriptions() { return {}; }
std::string cuda_device_uuid(const at::Device&) { return ""; }
std::string cuda_version() { return ""; }
GpuMemory gpu_memory(const at::Device&) { return {}; }
void reset_gpu_peak(const at::Device&) {}
void empty_gpu_cache() {}
void synchronize_gpu() {}
void set_gpu_sync_errors(bool) {}

#endif

}  // namespace runner::device
