#include "runtime/dist/optimizer_offload.h"

#include <c10/core/GradMode.h>

namespace runner::dist {

namespace {
at::Tensor host_copy(const at::Tensor& t, bool pin_memory) {
  // Page-locked memory makes the copies DMA transfers; it needs a GPU to exist.
  const bool pin = pin_memory && !t.device().is_cpu();
  at::Tensor h = at::empty(t.sizes(), t.options().device(at::kCPU).pinned_memory(pin));
  h.copy_(t);
  return h;
}
}  // namespace

OptimizerOffload::OptimizerOffload(optim::FlatParams& owned, bool pin_memory) : owned_(owned), pinned_(pin_memory) {
  c10::NoGradGuard no_grad;
  host_ = optim::FlatParams::over(host_copy(owned.data(), pin_memory), host_copy(owned.grad(), pin_memory).zero_(), owned.groups());
}

void OptimizerOffload::to_host() {
  c10::NoGradGuard no_grad;
  if (stale_) host_->data().copy_(owned_.data());
  stale_ = false;
  host_->grad().copy_(owned_.grad());
}

void OptimizerOffload::to_device() {
  c10::NoGradGuard no_grad;
  owned_.data().copy_(host_->data(), /*non_blocking=*/pinned_ && !owned_.data().device().is_cpu());
}

int64_t OptimizerOffload::host_bytes() const {
  return static_cast<int64_t>(host_->data().nbytes() + host_->grad().nbytes());
}

}  // namespace runner::dist
