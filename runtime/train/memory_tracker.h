// HF TrainerMemoryTracker for CPU memory: resident-set size at the start and end of a
// stage (init, train, eval, test) and its peak in between, sampled by a background thread.
// Reported as <stage>_mem_cpu_alloc_delta and <stage>_mem_cpu_peaked_delta (peak above the
// end value); the init stage is attached to the first report with before_init_mem_cpu.
// A stage started inside another (evaluation during training) is ignored, as in HF.
#pragma once
#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

namespace runner::train {

class MemoryTracker {
 public:
  explicit MemoryTracker(bool enabled = false);
  ~MemoryTracker();
  void enable(bool on) { enabled_ = on; }
  bool start(const std::string& stage);  // false when disabled or nested
  void stop(const std::string& stage, nlohmann::json& metrics);

  static int64_t rss_bytes();

 private:
  void stop_sampler();
  bool enabled_;
  std::string stage_;
  int64_t begin_ = 0;
  std::atomic<int64_t> peak_{0};
  std::atomic<bool> sampling_{false};
  std::thread sampler_;
  bool init_reported_ = false;
  nlohmann::json init_metrics_;
};

}  // namespace runner::train
