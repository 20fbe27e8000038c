// Counts the bytes CPU tensors hold, for tests that check what a node keeps for backward:
// while a CpuMemoryCounter lives, every CPU allocation goes through it (c10's allocator
// registry, the route at::empty takes) and live() is the bytes allocated since and not yet
// freed. Allocations made before it are not counted, nor their frees.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>

namespace runner::testing {

class CpuMemoryCounter final : public c10::Allocator {
 public:
  CpuMemoryCounter() : base_(c10::GetCPUAllocator()) { c10::SetCPUAllocator(this, kPriority); }
  ~CpuMemoryCounter() override { c10::SetCPUAllocator(base_, kPriority); }
  CpuMemoryCounter(const CpuMemoryCounter&) = delete;
  CpuMemoryCounter& operator=(const CpuMemoryCounter&) = delete;

  int64_t live() const { return live_->load(); }

  c10::DataPtr allocate(size_t n) override {
    c10::DataPtr inner = base_->allocate(n);
    void* data = inner.get();
    const c10::Device device = inner.device();
    live_->fetch_add(static_cast<int64_t>(n));
    // The count outlives the counter: a tensor allocated here may be freed after it is gone.
    return {data, new Held{std::move(inner), n, live_}, &release, device};
  }
  void copy_data(void* dest, const void* src, std::size_t count) const override { default_copy_data(dest, src, count); }

 private:
  static constexpr uint8_t kPriority = 255;
  struct Held {
    c10::DataPtr inner;
    size_t n;
    std::shared_ptr<std::atomic<int64_t>> live;
  };
  static void release(void* ctx) {
    auto* held = static_cast<Held*>(ctx);
    held->live->fetch_sub(static_cast<int64_t>(held->n));
    delete held;
  }

  c10::Allocator* base_;
  std::shared_ptr<std::atomic<int64_t>> live_ = std::make_shared<std::atomic<int64_t>>(0);
};

}  // namespace runner::testing
