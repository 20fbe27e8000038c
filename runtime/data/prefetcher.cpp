#include "runtime/data/prefetcher.h"

#include <chrono>
#include <stdexcept>
#include <string>

namespace runner::data {

Prefetcher::Prefetcher(int64_t workers, int64_t ahead) : workers_(workers), ahead_(ahead) {}

Prefetcher::~Prefetcher() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_workers_.notify_all();
  for (auto& t : threads_) t.join();
}

void Prefetcher::reset(Build build, int64_t end) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    build_ = std::move(build);
    end_ = end;
    ++generation_;
    slots_.clear();
    // Idle until asked: the first index of an epoch is not always 0 (resuming), and a loader
    // that is never read should not build anything.
    active_ = false;
  }
  wake_workers_.notify_all();
}

void Prefetcher::restart_at(int64_t index) {
  ++generation_;
  slots_.clear();
  next_ = scheduled_ = index;
  active_ = true;
}

Batch Prefetcher::take(int64_t index, double& waited) {
  std::unique_lock<std::mutex> lock(mu_);
  if (index < 0 || index >= end_) throw std::out_of_range("prefetch: batch " + std::to_string(index) + " out of range");
  // Threads start on first use, so loaders that are only measured (num_batches) cost none.
  if (threads_.empty())
    for (int64_t i = 0; i < workers_; ++i) threads_.emplace_back([this] { work(); });
  if (!active_ || index != next_) restart_at(index);
  wake_workers_.notify_all();
  const auto t0 = std::chrono::steady_clock::now();
  batch_ready_.wait(lock, [&] {
    auto it = slots_.find(index);
    return it != slots_.end() && it->second.done;
  });
  waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  Slot slot = std::move(slots_.at(index));
  slots_.erase(index);
  next_ = index + 1;
  lock.unlock();
  wake_workers_.notify_all();  // a place in the window opened
  if (slot.error) std::rethrow_exception(slot.error);
  return std::move(slot.batch);
}

void Prefetcher::work() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    wake_workers_.wait(lock, [&] { return stop_ || (active_ && scheduled_ < end_ && scheduled_ < next_ + ahead_); });
    if (stop_) return;
    const int64_t index = scheduled_++;
    const int64_t generation = generation_;
    Build build = build_;  // a copy: reset() may replace build_ while this batch is built
    slots_[index];         // marks it as in progress
    lock.unlock();
    Slot result;
    try {
      result.batch = build(index);
    } catch (...) {
      // Not Lua code: workers only ever run thread-safe C++ datasets and collators, and the
      // error is handed to the caller intact, whatever its type.
      result.error = std::current_exception();
    }
    result.done = true;
    lock.lock();
    if (generation == generation_) {
      slots_[index] = std::move(result);
      batch_ready_.notify_all();
    }
  }
}

}  // namespace runner::data
