// The collectives data-parallel training needs, on whole tensors, behind one interface with
// an MPI backend (CPU tensors) and an NCCL backend (GPU builds). Collectives act on equal
// blocks: callers pad instead of using v-variants (FSDP and DeepSpeed do the same), so
// every rank passes tensors of identical size and issues calls in identical order.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include <ATen/ATen.h>

namespace runner::dist {

enum class ReduceOp { kSum, kMax, kMin };

// Bytes and seconds spent in collectives since the last reset (optional timing).
struct CommStats {
  int64_t calls = 0;
  int64_t bytes = 0;
  double seconds = 0;
};

// A pending non-blocking collective. wait() returns when its result is in place.
class Work {
 public:
  virtual ~Work() = default;
  virtual bool test() = 0;  // true when done (also drives MPI progress)
  virtual void wait() = 0;
};

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual std::string backend() const = 0;
  // How long a blocked collective may wait before the job is aborted (ddp_timeout), for a
  // communicator made before the run's arguments were known; those without a watchdog ignore it.
  virtual void set_timeout(double /*seconds*/) {}

  // Every call below: contiguous tensors of the same dtype and size on every rank.
  virtual void broadcast(at::Tensor& t, int root = 0) = 0;
  virtual void all_reduce(at::Tensor& t, ReduceOp op = ReduceOp::kSum) = 0;  // in place
  // out (n) ← block `rank` of the element-wise sum of every rank's `in` (size · n).
  virtual void reduce_scatter(const at::Tensor& in, at::Tensor& out) = 0;
  // out (size · n) ← every rank's `in` (n), in rank order.
  virtual void all_gather(const at::Tensor& in, at::Tensor& out) = 0;
  // out (size · n): block r ← block `rank` of rank r's `in` (size · n). Pure data movement,
  // so a receiver can sum the blocks in an order of its choosing (ordered_reduce.h).
  virtual void all_to_all(const at::Tensor& in, at::Tensor& out) = 0;
  virtual void barrier() = 0;
  // Non-blocking in-place sum; `t` must stay alive and untouched until wait().
  virtual std::unique_ptr<Work> all_reduce_async(at::Tensor& t) = 0;
  // Non-blocking all_gather (ZeRO-3 prefetch); both tensors stay alive until wait().
  virtual std::unique_ptr<Work> all_gather_async(const at::Tensor& in, at::Tensor& out) = 0;

  const CommStats& stats() const { return stats_; }
  void reset_stats() { stats_ = {}; }

 protected:
  CommStats stats_;
};

// A world of one: every collective is the identity (or a copy).
std::shared_ptr<Communicator> make_local_communicator();

}  // namespace runner::dist
