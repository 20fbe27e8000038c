// HF TrainerMemoryTracker for CPU memory: resident-set size at the start and end of a
// stage (init, train, eval, test) and its peak in between, sampled by a background thread.
// Reported as <stage>_mem_cpu_alloc_delta and <stage>_mem_cpu_peaked_delta (peak above the
// end value); the init stage is attached to the first report with before_init_mem_cpu.
// A stage started inside another (evaluation during training) is ignored, as in HF.
// On a GPU also the CUDA caching allocator's bytes, as HF does: <stage>_mem_gpu_alloc_delta
// (allocated at the end minus at the start) and <stage>_mem_gpu_peaked_delta (the peak
// above the end value), and before_init_mem_gpu.
#pragma once
#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

#include <c10/core/Device.h>
#include <nlohmann/json.hpp>

namespace runner::train {

class MemoryTracker {
 public:
  explicit MemoryTracker(bool enabled = false);
  ~MemoryTracker();
  void enable(bool on) { enabled_ = on; }
  void set_device(c10::Device device) { device_ = device; }
  bool start(const std::string& stage);  // false when disabled or nested
  void stop(const std::string& stage, nlohmann::json& metrics);

  static int64_t rss_bytes();

 private:
  void stop_sampler();
  bool enabled_;
  std::string stage_;
  int64_t begin_ = 0;
  c10::Device device_{c10::kCPU};
  int64_t gpu_begin_ = 0;
  std::atomic<int64_t> peak_{0};
  std::atomic<bool> sampling_{false};
  std::thread sampler_;
  bool init_reported_ = false;
  nlohmann::json init_metrics_;
};

}  // namespace runner::train
