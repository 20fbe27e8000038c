// Background batch building for the DataLoader. Workers build the batches after the one
// the caller asked for last, up to `ahead` batches ahead, and hand them out by index. The
// caller reads indices in increasing order; any other index (resuming, a second pass)
// restarts the pipeline there. Building a batch must be a pure function of its index, so
// a prefetched batch is exactly what building it in the caller would have given.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/data/example.h"

namespace runner::data {

class Prefetcher {
 public:
  using Build = std::function<Batch(int64_t index)>;  // called on worker threads

  Prefetcher(int64_t workers, int64_t ahead);
  ~Prefetcher();  // stops and joins the workers (each finishes the batch it is building)
  Prefetcher(const Prefetcher&) = delete;
  Prefetcher& operator=(const Prefetcher&) = delete;

  // Forgets every pending batch and builds from now on with `build` for indices < end.
  // Batches still being built for the old function are discarded when they finish.
  void reset(Build build, int64_t end);
  // The batch at `index`, waiting for it if needed; a worker's exception is rethrown here.
  // `waited` receives the seconds spent blocked.
  Batch take(int64_t index, double& waited);

 private:
  struct Slot {
    bool done = false;
    Batch batch;
    std::exception_ptr error;
  };
  void work();
  void restart_at(int64_t index);  // with mu_ held

  const int64_t workers_, ahead_;
  std::mutex mu_;
  std::condition_variable wake_workers_, batch_ready_;
  Build build_;
  int64_t end_ = 0;
  int64_t generation_ = 0;  // bumped by every reset or restart: stale results are dropped
  int64_t next_ = 0;        // next index the caller is expected to take
  int64_t scheduled_ = 0;   // next index a worker will start on
  bool active_ = false;     // false until the first take() after a reset
  bool stop_ = false;
  std::map<int64_t, Slot> slots_;
  std::vector<std::thread> threads_;
};

}  // namespace runner::data
