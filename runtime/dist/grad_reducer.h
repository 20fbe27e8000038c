// Gradient reduction overlapped with backward, as PyTorch DDP's reducer does it: parameters
// are grouped into buckets (reverse registration order, which is roughly the order backward
// produces gradients; a small first bucket so the last layers' gradients do not wait), a
// post-hook on each parameter's gradient accumulator counts it ready, and a bucket whose
// gradients are all ready is all-reduced (SUM) without blocking while backward continues.
// Buckets start strictly in index order on every rank, so all ranks issue identical
// collective sequences even when gradients become ready in different orders; finish()
// starts whatever is left (parameters that got no gradient this step count as zero) and
// waits for everything.
//
// Two layouts:
//  - in place (DDP, ZeRO-1): gradients already live in one flat buffer; a bucket is a range
//    of it and is reduced where it lies.
//  - copy-out (ZeRO-2): each parameter has its own .grad; a ready bucket's gradients are
//    copied into a bucket buffer, the parameters' .grad released (this is what keeps full
//    gradients from accumulating), and the reduced bucket handed to `on_reduced`, which
//    keeps this rank's slice.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <ATen/ATen.h>

#include "runtime/dist/communicator.h"

namespace runner::dist {

struct BucketParam {
  std::string name;
  at::Tensor param;      // a leaf whose gradient accumulator gets the hook
  int64_t offset = 0;    // position in the flat layout
  int64_t numel = 0;
};

struct ReducerOptions {
  int64_t bucket_cap_bytes = 25 << 20;  // ddp_bucket_cap_mb
  int64_t first_bucket_bytes = 1 << 20;
  // In-place layout: the flat gradient buffer the parameters' .grad are views of.
  at::Tensor flat_grad;
  // Copy-out layout: receives (flat offset of the bucket, reduced bucket values).
  std::function<void(int64_t, const at::Tensor&)> on_reduced;
  // In-place layout whose gradients are written on their window's first accumulation
  // (FlatParams::write_grads_on_first_accumulation, whose hooks run before the reducer's):
  // called in finish() before the buckets not yet started go, to zero the slots no gradient
  // reached in this window (they hold the last window's values) and make every slot .grad.
  std::function<void()> before_leftovers;
};

class GradReducer {
 public:
  // `params` in flat order (offsets increasing, contiguous).
  GradReducer(std::shared_ptr<Communicator> comm, std::vector<BucketParam> params, ReducerOptions options);
  ~GradReducer();

  // Before a backward: whether this micro-step's gradients are reduced (false on
  // gradient-accumulation micro-steps of DDP / ZeRO-1: no communication, like no_sync()).
  void prepare(bool sync);
  // After the micro-step (whether or not backward ran on this rank): reduce what is left
  // and wait. No-op when prepare(false).
  void finish();

  // Bucket boundaries as parameter name lists (for logs and tests).
  std::vector<std::vector<std::string>> bucket_names() const;

  struct State;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace runner::dist
