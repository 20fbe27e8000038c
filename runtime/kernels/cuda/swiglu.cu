// silu(g)·u and its gradients, elementwise, with ATen's roundings: silu's result is stored in
// the storage dtype before the product, as at::silu followed by at::mul stores it
// (tests/kernels/test_fused_kernels_gpu.cpp compares them).
#include "runtime/kernels/cuda/common.cuh"

namespace runner::kernels::cuda {

namespace {

template <typename T>
__global__ void forward_kernel(const T* __restrict__ g, const T* __restrict__ u, T* __restrict__ y, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    const float v = to_float(g[i]);
    const float silu = round_to<T>(v / (1.0f + expf(-v)));
    y[i] = from_float<T>(__fmul_rn(silu, to_float(u[i])));
  }
}

// d u = dy·silu(g); d g = silu_backward(dy·u, g) = (dy·u)·σ·(1 + g·(1 − σ)), ATen's formula,
// with mul's gradient dy·u stored in T first as autograd stores it.
template <typename T>
__global__ void backward_kernel(const T* __restrict__ dy, const T* __restrict__ g, const T* __restrict__ u, T* __restrict__ dg,
                                T* __restrict__ du, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    const float v = to_float(g[i]), d = to_float(dy[i]);
    const float silu = round_to<T>(v / (1.0f + expf(-v)));
    const float grad_silu = round_to<T>(__fmul_rn(d, to_float(u[i])));
    const float s = 1.0f / (1.0f + expf(-v));
    dg[i] = from_float<T>(grad_silu * s * (1.0f + v * (1.0f - s)));
    du[i] = from_float<T>(__fmul_rn(d, silu));
  }
}

constexpr int kThreads = 256;

}  // namespace

void swiglu_forward(const void* g, const void* u, void* y, DType t, int64_t n, void* stream) {
  if (n == 0) return;
  with_type(t, [&](auto zero) {
    using T = decltype(zero);
    forward_kernel<T><<<grid_for(n, kThreads), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
        static_cast<const T*>(g), static_cast<const T*>(u), static_cast<T*>(y), n);
  });
  check_launch("swiglu forward");
}

void swiglu_backward(const void* dy, const void* g, const void* u, void* dg, void* du, DType t, int64_t n, void* stream) {
  if (n == 0) return;
  with_type(t, [&](auto zero) {
    using T = decltype(zero);
    backward_kernel<T><<<grid_for(n, kThreads), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
        static_cast<const T*>(dy), static_cast<const T*>(g), static_cast<const T*>(u), static_cast<T*>(dg), static_cast<T*>(du), n);
  });
  check_launch("swiglu backward");
}

}  // namespace runner::kernels::cuda
