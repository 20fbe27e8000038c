// DataLoader: batches of a dataset in the order a sampler gives, one epoch at a time.
// Batches are addressed by index within the epoch, so resuming skips batches without
// loading them.
//
// With num_workers > 0, a thread-safe dataset and a thread-safe (or default) collator,
// background threads build the next num_workers × prefetch_factor batches while the
// caller trains on the current one (torch's DataLoader workers, as threads). A batch is a
// pure function of (epoch order, index), so prefetched batches equal unprefetched ones.
// Datasets or collators backed by Lua are never run on workers: the loader then builds
// every batch in the calling thread, as with num_workers = 0.
#pragma once
#include <memory>
#include <vector>

#include "runtime/data/collator.h"
#include "runtime/data/dataset.h"
#include "runtime/data/sampler.h"

namespace runner::data {

class Prefetcher;
class StreamLoader;

struct LoaderOptions {
  int64_t batch_size = 8;
  bool drop_last = false;
  Collator collator;  // empty = default_collate (with the dataset's fast gather when it has one)
  int64_t num_workers = 0;
  int64_t prefetch_factor = 2;        // batches built ahead per worker
  bool collator_thread_safe = false;  // whether `collator` may run on worker threads
  // Copy each batch into page-locked host memory (on the worker when there are workers), so
  // its copy to the GPU runs without blocking (dataloader_pin_memory; needs a GPU).
  bool pin_memory = false;
  uint64_t seed = 0;  // BatchOrigin::seed: the run's seed, for collators that draw random numbers
};

class DataLoader {
 public:
  DataLoader(DatasetPtr dataset, std::shared_ptr<const Sampler> sampler, LoaderOptions options);
  // A data.stream's loader (stream/stream_loader.h): `num_batches` is what the run reads
  // (max_steps × accumulation), batches come in order only and set_epoch does nothing (the
  // stream moves to its next epoch itself when its shards are done).
  DataLoader(std::shared_ptr<StreamLoader> stream, int64_t num_batches, bool pin_memory);
  ~DataLoader();  // joins the workers
  DataLoader(DataLoader&&) noexcept;
  DataLoader& operator=(DataLoader&&) noexcept;

  int64_t num_batches() const;  // per epoch: ceil(n / bs), or floor with drop_last (n = the sampler's order length)
  // Starts an epoch; batches prefetched for the previous one are discarded.
  void set_epoch(int64_t epoch);
  // index-th batch of the current epoch. Fastest when read in increasing order; any other
  // index restarts prefetching there. Not for concurrent callers.
  Batch batch(int64_t index) const;
  const Dataset& dataset() const { return *dataset_; }  // not for a stream
  StreamLoader* stream() const { return stream_.get(); }  // null for a dataset
  int64_t batch_size() const { return options_.batch_size; }
  // Whether batches are built on background threads.
  bool prefetching() const { return prefetcher_ != nullptr; }
  // Seconds batch() has spent waiting for data since construction (building it, without
  // workers): what the trainer can log as data-loading time.
  double wait_seconds() const { return wait_seconds_; }

 private:
  DatasetPtr dataset_;
  std::shared_ptr<const Sampler> sampler_;
  LoaderOptions options_;
  int64_t epoch_ = -1;
  std::shared_ptr<const std::vector<int64_t>> order_;
  std::unique_ptr<Prefetcher> prefetcher_;
  mutable double wait_seconds_ = 0;
  std::shared_ptr<StreamLoader> stream_;
  int64_t stream_batches_ = 0;
};

}  // namespace runner::data
