#include "runtime/kernels/cuda_kernels.h"

#ifdef RUNNER_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#endif

#include <c10/util/Exception.h>

namespace runner::kernels::cuda {

std::optional<DType> dtype(at::ScalarType t) {
  switch (t) {
    case at::kFloat: return DType::kFloat;
    case at::kBFloat16: return DType::kBFloat16;
    case at::kHalf: return DType::kHalf;
    default: return std::nullopt;
  }
}

#ifdef RUNNER_WITH_CUDA

bool built() { return true; }

int compute_capability(const at::Device& device) {
  if (!device.is_cuda()) return 0;
  const cudaDeviceProp* p = at::cuda::getDeviceProperties(device.has_index() ? device.index() : at::cuda::current_device());
  return p->major * 10 + p->minor;
}

Launch::Launch(const at::Tensor& t) {
  guard_ = std::make_shared<c10::cuda::CUDAGuard>(t.device());
  stream = at::cuda::getCurrentCUDAStream(t.device().index()).stream();
}

#else  // the callers check built() first; these are never reached

namespace {
[[noreturn]] void not_built() { TORCH_CHECK(false, "runner was built without its CUDA kernels"); }
}  // namespace

bool built() { return false; }
int compute_capability(const at::Device&) { return 0; }
Launch::Launch(const at::Tensor&) { not_built(); }
void rms_norm_forward(const void*, DType, const void*, DType, void*, DType, float*, int64_t, int64_t, float, void*) { not_built(); }
int64_t rms_norm_backward_blocks(int64_t) { not_built(); }
void rms_norm_backward(const void*, DType, const void*, DType, const void*, DType, const float*, void*, void*, float*, int64_t, int64_t, void*) {
  not_built();
}
void layer_norm_forward(const void*, DType, const void*, const void*, DType, void*, DType, float*, float*, int64_t, int64_t, float, void*) {
  not_built();
}
int64_t layer_norm_backward_blocks(int64_t) { not_built(); }
void layer_norm_backward(const void*, DType, const void*, DType, const void*, DType, const float*, const float*, void*, void*, void*, float*,
                         int64_t, int64_t, void*) {
  not_built();
}
void swiglu_forward(const void*, const void*, void*, DType, int64_t, void*) { not_built(); }
void swiglu_backward(const void*, const void*, const void*, void*, void*, DType, int64_t, void*) { not_built(); }
void rotary(const void*, DType, const void*, const void*, DType, void*, DType, const RotaryShape&, bool, void*) { not_built(); }
void cross_entropy_rows(void*, DType, int64_t, int64_t, int64_t, const int64_t*, int64_t, float*, bool, void*) { not_built(); }

#endif

}  // namespace runner::kernels::cuda
