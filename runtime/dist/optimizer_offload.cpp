#include "runtime/dist/optimizer_offload.h"

#include <c10/core/GradMode.h>

namespace runner::dist {

namespace {
at::Tensor pinned_copy(const at::Tensor& t) {
  // Page-locked memory makes the copies DMA transfers; it needs a GPU to exist.
  const bool pin = !t.device().is_cpu();
  at::Tensor h = at::empty(t.sizes(), t.options().device(at::kCPU).pinned_memory(pin));
  h.copy_(t);
  return h;
}
}  // namespace

OptimizerOffload::OptimizerOffload(optim::FlatParams& owned) : owned_(owned) {
  c10::NoGradGuard no_grad;
  host_ = optim::FlatParams::over(pinned_copy(owned.data()), pinned_copy(owned.grad()).zero_(), owned.groups());
}

void OptimizerOffload::to_host() {
  c10::NoGradGuard no_grad;
  if (stale_) host_->data().copy_(owned_.data());
  stale_ = false;
  host_->grad().copy_(owned_.grad());
}

void OptimizerOffload::to_device() {
  c10::NoGradGuard no_grad;
  owned_.data().copy_(host_->data(), /*non_blocking=*/!owned_.data().device().is_cpu());
}

int64_t OptimizerOffload::host_bytes() const {
  return static_cast<int64_t>(host_->data().nbytes() + host_->grad().nbytes());
}

}  // namespace runner::dist
