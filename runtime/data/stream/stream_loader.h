// The DataLoader of a data.stream on one rank (torch's DataLoader over an IterableDataset):
// the stream is split over ranks × readers (stream_reader.h), readers = dataloader_num_workers
// (one when 0), and batch k of this rank is the next batch of reader k mod readers, as torch
// interleaves its workers' batches. With workers (and a thread-safe collator) each reader runs
// on its own thread, prefetch_factor batches ahead; without, batches are built when asked
// for. Either way batch k is the same, so the number of threads never changes the data; the
// number of readers does (it splits the stream), so a resumed run must keep it.
//
// state() is where the batches handed out so far leave every reader (not the prefetched
// ones): a checkpoint saves it, and restore() continues from it without reading again.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/data/collator.h"
#include "runtime/data/stream/stream_reader.h"

namespace runner::data {

struct StreamLoaderOptions {
  int64_t batch_size = 8;
  int64_t num_workers = 0;
  int64_t prefetch_factor = 2;
  Collator collator;                  // empty = default_collate
  bool collator_thread_safe = false;  // may `collator` run on the workers
  uint64_t seed = 0;                  // BatchOrigin::seed: the run's seed
};

class StreamLoader {
 public:
  StreamLoader(StreamPtr stream, int64_t rank, int64_t world, StreamLoaderOptions options);
  ~StreamLoader();  // stops and joins the workers
  StreamLoader(const StreamLoader&) = delete;
  StreamLoader& operator=(const StreamLoader&) = delete;

  // Batch `index` of the run; indices come in order (0, 1, 2, … or from where restore() left).
  Batch batch(int64_t index);
  int64_t next_index() const { return next_; }
  // This rank's position: {"rank", "world", "readers", "batches", "states": [per reader]}.
  nlohmann::json state() const;
  // Continue from a state() of the same rank; a checkpoint of another split (world size or
  // dataloader_num_workers) is a CheckpointError naming `where`.
  void restore(const nlohmann::json& state, const std::string& where);
  // Records this process read from the shards, and those it read only to reach a resumed
  // position (Parquet rows before it in its row group): the cost of resuming.
  int64_t records_read() const;
  int64_t records_skipped() const;
  double wait_seconds() const { return wait_seconds_; }
  const Stream& stream() const { return *stream_; }

 private:
  struct Produced {
    Batch batch;
    std::shared_ptr<const StreamReaderState> after;  // the reader's state once it was built
    std::exception_ptr error;
  };
  struct Reader {
    int64_t id = 0;  // rank × readers + worker: which share of the shards it reads
    std::unique_ptr<StreamReader> reader;
    std::deque<Produced> ready;
    std::shared_ptr<const StreamReaderState> consumed;  // after the last batch handed out
    std::thread thread;
  };
  Produced produce(Reader& r) const;
  void work(Reader& r);
  void start_threads();
  void stop_threads();

  StreamPtr stream_;
  int64_t rank_, world_;
  StreamLoaderOptions options_;
  std::vector<std::unique_ptr<Reader>> readers_;
  int64_t next_ = 0;
  bool threaded_ = false, started_ = false, stop_ = false;
  std::mutex mutex_;
  std::condition_variable cv_;
  double wait_seconds_ = 0;
};

}  // namespace runner::data
