#include "runtime/train/memory_tracker.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "runtime/device/gpu_info.h"

namespace runner::train {

int64_t MemoryTracker::rss_bytes() {
  long pages_total = 0, pages_resident = 0;
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  if (std::fscanf(f, "%ld %ld", &pages_total, &pages_resident) != 2) pages_resident = 0;
  std::fclose(f);
  return static_cast<int64_t>(pages_resident) * ::sysconf(_SC_PAGESIZE);
}

MemoryTracker::MemoryTracker(bool enabled) : enabled_(enabled) {}

MemoryTracker::~MemoryTracker() { stop_sampler(); }

void MemoryTracker::stop_sampler() {
  sampling_ = false;
  if (sampler_.joinable()) sampler_.join();
}

bool MemoryTracker::start(const std::string& stage) {
  if (!enabled_ || !stage_.empty()) return false;
  stage_ = stage;
  begin_ = rss_bytes();
  peak_ = begin_;
  if (device_.is_cuda()) {
    device::reset_gpu_peak(device_);
    gpu_begin_ = device::gpu_memory(device_).allocated;
  }
  sampling_ = true;
  sampler_ = std::thread([this] {
    while (sampling_) {
      const int64_t now = rss_bytes();
      int64_t prev = peak_.load();
      while (now > prev && !peak_.compare_exchange_weak(prev, now)) {
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  return true;
}

void MemoryTracker::stop(const std::string& stage, nlohmann::json& metrics) {
  if (!enabled_ || stage_ != stage) return;
  stop_sampler();
  const int64_t end = rss_bytes();
  const int64_t peak = std::max(peak_.load(), end);
  stage_.clear();
  nlohmann::json gpu = nlohmann::json::object();
  if (device_.is_cuda()) {
    const device::GpuMemory now = device::gpu_memory(device_);
    gpu[stage + "_mem_gpu_alloc_delta"] = now.allocated - gpu_begin_;
    gpu[stage + "_mem_gpu_peaked_delta"] = std::max<int64_t>(0, now.peak - now.allocated);
  }
  if (stage == "init") {
    init_metrics_ = {{"before_init_mem_cpu", begin_},
                     {"init_mem_cpu_alloc_delta", end - begin_},
                     {"init_mem_cpu_peaked_delta", std::max<int64_t>(0, peak - end)}};
    if (device_.is_cuda()) init_metrics_["before_init_mem_gpu"] = gpu_begin_;
    init_metrics_.update(gpu);
    return;
  }
  if (!init_reported_ && !init_metrics_.is_null()) {
    for (auto it = init_metrics_.begin(); it != init_metrics_.end(); ++it) metrics[it.key()] = it.value();
    init_reported_ = true;
  }
  metrics[stage + "_mem_cpu_alloc_delta"] = end - begin_;
  metrics[stage + "_mem_cpu_peaked_delta"] = std::max<int64_t>(0, peak - end);
  metrics.update(gpu);
}

}  // namespace runner::train
