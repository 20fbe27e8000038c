// bf16 mixed precision on CPU the way torch.autocast(device_type="cpu", dtype=bfloat16)
// does it: inside the scope, ATen runs matmul-like ops in bf16 and keeps precision-
// sensitive ones (softmax, norms, losses) in fp32; parameters and gradients stay fp32
// (the master weights). The Trainer opens one around every forward and loss.
#pragma once
#include <ATen/autocast_mode.h>

namespace runner::train {

class AutocastGuard {
 public:
  explicit AutocastGuard(bool enabled) : enabled_(enabled) {
    if (!enabled_) return;
    prev_enabled_ = at::autocast::is_cpu_enabled();
    prev_dtype_ = at::autocast::get_autocast_cpu_dtype();
    at::autocast::set_cpu_enabled(true);
    at::autocast::set_autocast_cpu_dtype(at::kBFloat16);
    at::autocast::increment_nesting();
  }
  ~AutocastGuard() {
    if (!enabled_) return;
    // The cast cache holds bf16 copies of the weights; it is valid for one step only.
    if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
    at::autocast::set_cpu_enabled(prev_enabled_);
    at::autocast::set_autocast_cpu_dtype(prev_dtype_);
  }
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  bool enabled_;
  bool prev_enabled_ = false;
  at::ScalarType prev_dtype_ = at::kBFloat16;
};

}  // namespace runner::train
