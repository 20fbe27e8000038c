// Counts the bytes CPU tensors hold, for tests and benchmarks that check what a node keeps for
// backward: while a CpuMemoryCounter lives, every CPU allocation goes through a counting
// allocator (c10's allocator registry, the route at::empty takes) and live() is the bytes
// allocated since the counter began and not yet freed.
#pragma once
#include <atomic>
#include <cstdint>
#include <mutex>
#include <unordered_map>

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>

namespace runner::testing {

// Installed by CpuMemoryCounter, never destroyed: a storage made while it was installed keeps
// a pointer to it (for resize_ and its free), which may be used after the counter is gone.
class CountingCpuAllocator final : public c10::Allocator {
 public:
  static CountingCpuAllocator& get() {
    static auto* allocator = new CountingCpuAllocator(c10::GetCPUAllocator());
    return *allocator;
  }
  int64_t live() const { return live_.load(); }

  c10::DataPtr allocate(size_t n) override {
    c10::DataPtr inner = base_->allocate(n);
    void* data = inner.get();
    // raw_allocate (oneDNN's scratch) wants the data pointer as the context, as c10's default
    // CPU allocator gives it; the size and the base's deleter wait in a table instead.
    TORCH_CHECK(data == inner.get_context(), "CountingCpuAllocator: the CPU allocator's context is not its data pointer");
    const c10::DeleterFnPtr deleter = inner.get_deleter();
    const c10::Device device = inner.device();
    inner.release_context();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      held_[data] = {n, deleter};
    }
    live_.fetch_add(static_cast<int64_t>(n));
    return {data, data, &release, device};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &release; }
  void copy_data(void* dest, const void* src, std::size_t count) const override { default_copy_data(dest, src, count); }

 private:
  explicit CountingCpuAllocator(c10::Allocator* base) : base_(base), base_raw_deleter_(base->raw_deleter()) {}
  struct Held {
    size_t n;
    c10::DeleterFnPtr deleter;
  };
  static void release(void* data) {
    CountingCpuAllocator& self = get();
    Held h{0, self.base_raw_deleter_};  // not ours (oneDNN frees through the current allocator): the base's
    {
      std::lock_guard<std::mutex> lock(self.mutex_);
      if (auto it = self.held_.find(data); it != self.held_.end()) {
        h = it->second;
        self.held_.erase(it);
      }
    }
    self.live_.fetch_sub(static_cast<int64_t>(h.n));
    if (h.deleter) h.deleter(data);
  }

  c10::Allocator* base_;
  c10::DeleterFnPtr base_raw_deleter_;
  std::mutex mutex_;
  std::unordered_map<void*, Held> held_;
  std::atomic<int64_t> live_{0};
};

// Counting for one scope (the previous CPU allocator is back after it; scopes nest).
class CpuMemoryCounter {
 public:
  CpuMemoryCounter() : previous_(c10::GetCPUAllocator()), start_(CountingCpuAllocator::get().live()) {
    c10::SetCPUAllocator(&CountingCpuAllocator::get(), kPriority);
  }
  ~CpuMemoryCounter() { c10::SetCPUAllocator(previous_, kPriority); }
  CpuMemoryCounter(const CpuMemoryCounter&) = delete;
  CpuMemoryCounter& operator=(const CpuMemoryCounter&) = delete;

  int64_t live() const { return CountingCpuAllocator::get().live() - start_; }

 private:
  static constexpr uint8_t kPriority = 255;  // above c10's default CPU allocator's 0
  c10::Allocator* previous_;
  int64_t start_;
};

}  // namespace runner::testing
