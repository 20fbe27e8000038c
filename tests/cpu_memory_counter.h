// Counts the bytes CPU tensors hold, for tests that check what a node keeps for backward:
// while a CpuMemoryCounter lives, every CPU allocation goes through it (c10's allocator
// registry, the route at::empty takes) and live() is the bytes allocated since it began and
// not yet freed. Allocations made before it are not counted, nor their frees.
#pragma once
#include <atomic>
#include <cstdint>
#include <mutex>
#include <unordered_map>

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>

namespace runner::testing {

class CpuMemoryCounter final : public c10::Allocator {
 public:
  CpuMemoryCounter() : base_(c10::GetCPUAllocator()), start_(state().live.load()) { c10::SetCPUAllocator(this, kPriority); }
  ~CpuMemoryCounter() override { c10::SetCPUAllocator(base_, kPriority); }
  CpuMemoryCounter(const CpuMemoryCounter&) = delete;
  CpuMemoryCounter& operator=(const CpuMemoryCounter&) = delete;

  int64_t live() const { return state().live.load() - start_; }

  c10::DataPtr allocate(size_t n) override {
    c10::DataPtr inner = base_->allocate(n);
    void* data = inner.get();
    // raw_allocate (oneDNN's scratch) wants the data pointer as the context, as c10's default
    // CPU allocator gives it; the size and the base's deleter wait in a table instead.
    TORCH_CHECK(data == inner.get_context(), "CpuMemoryCounter: the CPU allocator's context is not its data pointer");
    const c10::DeleterFnPtr deleter = inner.get_deleter();
    const c10::Device device = inner.device();
    inner.release_context();
    State& s = state();
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      s.held[data] = {n, deleter};
    }
    s.live.fetch_add(static_cast<int64_t>(n));
    return {data, data, &release, device};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &release; }
  void copy_data(void* dest, const void* src, std::size_t count) const override { default_copy_data(dest, src, count); }

 private:
  static constexpr uint8_t kPriority = 255;
  struct Held {
    size_t n;
    c10::DeleterFnPtr deleter;
  };
  // Process-wide: a tensor allocated here may be freed after the counter is gone.
  struct State {
    std::mutex mutex;
    std::unordered_map<void*, Held> held;
    std::atomic<int64_t> live{0};
  };
  static State& state() {
    static State* s = new State;  // never destroyed: frees may come during exit
    return *s;
  }
  static void release(void* data) {
    State& s = state();
    Held h;
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      auto it = s.held.find(data);
      h = it->second;
      s.held.erase(it);
    }
    s.live.fetch_sub(static_cast<int64_t>(h.n));
    if (h.deleter) h.deleter(data);
  }

  c10::Allocator* base_;
  int64_t start_;
};

}  // namespace runner::testing
