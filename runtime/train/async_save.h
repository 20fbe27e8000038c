// save_async: a checkpoint written by a background thread while training continues, what
// torch.distributed.checkpoint.async_save and DeepSpeed's async checkpoint engines do.
//
// At the save step every rank copies what the checkpoint needs to host memory (SaveJob:
// pinned memory on a GPU) with the collectives the synchronous save runs; a thread then
// writes this rank's files. The writer (rank 0) stages the folder, waits until every other
// rank's shard file is in the side folder (each appears by an atomic rename, so its presence
// means it is whole: the ranks agree through the shared folder, with no collective off the
// main thread), moves them in, writes the manifest and renames the folder into
// checkpoint-N: a crash at any moment leaves no checkpoint-N that resume would pick. At most
// one save is in flight: the next save, the end of training and a preemption stop wait for it.
#pragma once
#include <atomic>
#include <exception>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <ATen/ATen.h>

#include "runtime/dist/partition.h"
#include "runtime/io/checkpoint.h"
#include "runtime/optim/flat_params.h"

namespace runner::train {

// One rank's part of one checkpoint, ready to write: nothing in it refers to live training
// state (tensors are copies), except `layout`, which does not change during training.
struct SaveJob {
  std::string dir;                    // output_dir/checkpoint-N
  bool writer = false;                // this rank writes the folder (rank 0, or each node's with save_on_each_node)
  io::CheckpointContents contents;    // what the writer writes; move_files: every rank's shard
  std::string shard_path;             // this rank's optimizer shard file, "" when not sharded
  const optim::FlatParams* layout = nullptr;
  std::vector<dist::OwnedRange> owned;
  std::map<std::string, at::Tensor> shard;  // state name → this rank's flat shard
  std::function<void()> after_commit;       // the writer: rotation, stale side folders
};

// A copy of `t` that training cannot change: on the host, in pinned memory for a GPU tensor.
at::Tensor host_copy(const at::Tensor& t);

// This rank's files of `job` and, on the writer, the commit. `before_moves` runs on the
// writer after its own files are staged and before the other ranks' files are moved in.
void write_save_job(const SaveJob& job, const std::function<void()>& before_moves = nullptr);

// The thread that writes one SaveJob; errors are kept and rethrown on the training thread.
class BackgroundSave {
 public:
  BackgroundSave() = default;
  BackgroundSave(const BackgroundSave&) = delete;
  BackgroundSave& operator=(const BackgroundSave&) = delete;
  ~BackgroundSave();  // an unfinished save is abandoned: no wait for other ranks' files, no commit

  void start(SaveJob job);
  bool in_flight() const { return thread_.joinable(); }
  // Blocks until the write is done; rethrows its error (a CheckpointError, as the
  // synchronous save would have thrown). True when a save was in flight.
  bool wait();
  // Without blocking: rethrows the error of a write that already failed.
  void check();

 private:
  void run(const SaveJob& job);

  std::thread thread_;
  std::atomic<bool> done_{false}, cancelled_{false};
  std::exception_ptr error_;
};

}  // namespace runner::train
