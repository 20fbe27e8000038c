#include "runtime/models/activation_offload.h"

#include <ATen/ATen.h>

#include <atomic>

namespace runner::models {

namespace {

std::atomic<int64_t> copied_bytes{0};

// An empty tensor laid out like t (dense t keeps its strides, so the recompute sees the same
// layout), on `device`.
at::Tensor empty_like_on(const at::Tensor& t, c10::Device device, bool pinned) {
  return at::empty_strided(t.sizes(), t.strides(), t.options().device(device).pinned_memory(pinned));
}

}  // namespace

bool goes_to_host(const at::Tensor& input, ActivationOffload mode) {
  if (mode == ActivationOffload::kOff || !input.defined() || !input.requires_grad()) return false;
  return !input.is_cpu() || mode == ActivationOffload::kToHostCopyingOnCpu;
}

at::Tensor to_host(const at::Tensor& t) {
  const at::Tensor src = t.is_non_overlapping_and_dense() ? t : t.contiguous();
  at::Tensor host = empty_like_on(src, c10::Device(c10::kCPU), src.is_cuda());
  // Queued on the current stream; nothing waits. The caller then drops the device tensor,
  // and the CUDA caching allocator gives its block to a later allocation on this same
  // stream only, whose kernels run after this copy in stream order: the copy reads the
  // block before anything overwrites it. The host never reads the copy; its one reader is
  // from_host's copy, queued later on the same stream (autograd runs a node's backward on
  // the stream its forward used).
  host.copy_(src, /*non_blocking=*/true);
  copied_bytes.fetch_add(static_cast<int64_t>(src.nbytes()), std::memory_order_relaxed);
  return host;
}

at::Tensor from_host(const at::Tensor& host, c10::Device device) {
  at::Tensor out = empty_like_on(host, device, false);
  // From pinned memory the copy is asynchronous too. The pinned block may be freed as soon
  // as this returns: CUDA's host allocator records the copy and reuses the block only once
  // the copy has finished.
  out.copy_(host, /*non_blocking=*/true);
  return out;
}

int64_t offloaded_bytes() { return copied_bytes.load(std::memory_order_relaxed); }

}  // namespace runner::models
