// ZeRO-Offload of the optimizer (DeepSpeed offload_optimizer.device = "cpu", FSDP offload):
// the optimizer's fp32 master copy of the parameters it owns, their gradients and its whole
// state live in host memory (page-locked when asked) and the step runs on the CPU, so the device holds
// only the parameters and gradients. Each step: gradients device → host, the CPU step,
// parameters host → device. The host master copy is refreshed from the device only when the
// device values changed behind its back (start, checkpoint loads).
// On a CPU run the same mechanism works on plain host buffers: results are identical to a
// run without offload, which is how it is tested without a GPU.
#pragma once
#include <memory>

#include <ATen/ATen.h>

#include "runtime/optim/flat_params.h"

namespace runner::dist {

class OptimizerOffload {
 public:
  // `owned`: the parameters (and gradients) this rank's optimizer updates, on the device.
  // `pin_memory`: page-locked host buffers (copies without blocking the host).
  OptimizerOffload(optim::FlatParams& owned, bool pin_memory);
  optim::FlatParams& host() { return *host_; }  // what the optimizer is built on
  // Before the optimizer step: gradients (and, if stale, parameters) to the host.
  void to_host();
  // After it: the updated parameters back to the device.
  void to_device();
  // The device parameters were overwritten (a checkpoint was loaded).
  void mark_stale() { stale_ = true; }
  int64_t host_bytes() const;

 private:
  optim::FlatParams& owned_;
  std::unique_ptr<optim::FlatParams> host_;
  bool pinned_;
  bool stale_ = false;
};

}  // namespace runner::dist
