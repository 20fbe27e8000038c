// Mixed precision the way torch.autocast(device_type, dtype) does it: inside the scope, ATen
// runs matmul-like ops in the low-precision dtype and keeps precision-sensitive ones
// (softmax, norms, losses) in fp32; parameters and gradients stay fp32 (the master
// weights). The Trainer opens one around every forward and loss (not backward), on the model's device
// type (CPU: bf16 only; CUDA: bf16 or fp16), through LibTorch 2.x's device-generic API.
#pragma once
#include <ATen/autocast_mode.h>

namespace runner::device {

class AutocastGuard {
 public:
  AutocastGuard(bool enabled, at::DeviceType device, at::ScalarType dtype) : mode_(enabled ? kOn : kNone), device_(device) {
    if (mode_ == kNone) return;
    save();
    at::autocast::set_autocast_enabled(device_, true);
    at::autocast::set_autocast_dtype(device_, dtype);
    at::autocast::increment_nesting();
  }
  // Autocast off for `device` inside the scope (backward inside a forward's scope), restored after.
  struct Off {};
  AutocastGuard(Off, at::DeviceType device) : mode_(kNone), device_(device) {
    if (!at::autocast::is_autocast_enabled(device_)) return;
    mode_ = kOff;
    save();
    at::autocast::set_autocast_enabled(device_, false);
  }
  ~AutocastGuard() {
    if (mode_ == kNone) return;
    // The cast cache holds low-precision copies of the weights; valid for one step only.
    if (mode_ == kOn && at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
    at::autocast::set_autocast_enabled(device_, prev_enabled_);
    at::autocast::set_autocast_dtype(device_, prev_dtype_);
  }
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  enum Mode { kNone, kOn, kOff };
  void save() {
    prev_enabled_ = at::autocast::is_autocast_enabled(device_);
    prev_dtype_ = at::autocast::get_autocast_dtype(device_);
  }
  Mode mode_;
  at::DeviceType device_;
  bool prev_enabled_ = false;
  at::ScalarType prev_dtype_ = at::kBFloat16;
};

}  // namespace runner::device
