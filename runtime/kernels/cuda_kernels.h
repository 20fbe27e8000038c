#pragma once
// Where the fused ops (rms_norm.cpp, rotary.cpp, swiglu.cpp) meet runner's CUDA kernels
// (cuda/*.cu, launched through cuda/launchers.h). A build without CUDA compiles the same
// callers: built() is false there and the launchers are never reached.
#include <memory>
#include <optional>

#include <ATen/core/Tensor.h>

#include "runtime/kernels/cuda/launchers.h"

namespace runner::kernels::cuda {

// Whether runner was built with its CUDA kernels.
bool built();
// The compute capability of a CUDA device as major · 10 + minor (80 for A100, 90 for H100,
// 86 for an RTX 3090); 0 without CUDA.
int compute_capability(const at::Device& device);
// The kernels' name for a dtype they take (float32, bfloat16, float16).
std::optional<DType> dtype(at::ScalarType t);

// Makes `t`'s device current for the launches in its scope; `stream` is that device's current
// CUDA stream (what ATen's ops on that device run on, so ordering needs nothing more).
class Launch {
 public:
  explicit Launch(const at::Tensor& t);
  void* stream = nullptr;

 private:
  std::shared_ptr<void> guard_;
};

}  // namespace runner::kernels::cuda
