#pragma once
// What runner's CUDA kernels share: float ↔ storage conversions that round as ATen stores an
// op's result (to nearest even), a block-wide sum, the launch check, and dispatch over the
// storage dtypes. No ATen headers: these files compile in seconds.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "runtime/kernels/cuda/launchers.h"

namespace runner::kernels::cuda {

__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }

template <typename T>
__device__ __forceinline__ T from_float(float v);
template <>
__device__ __forceinline__ float from_float<float>(float v) { return v; }
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
template <>
__device__ __forceinline__ __half from_float<__half>(float v) { return __float2half_rn(v); }

// v as an op whose result is stored in T would leave it.
template <typename T>
__device__ __forceinline__ float round_to(float v) { return to_float(from_float<T>(v)); }

// Sum over the block (blockDim.x a multiple of 32, at most 1024), returned to every thread.
__device__ __forceinline__ float block_sum(float v) {
  __shared__ float warp_sums[32];
  __shared__ float total;
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    float s = lane < static_cast<int>(blockDim.x / 32) ? warp_sums[lane] : 0.0f;
    for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (lane == 0) total = s;
  }
  __syncthreads();
  const float out = total;
  __syncthreads();  // the next call may overwrite warp_sums/total
  return out;
}

inline void check_launch(const char* what) {
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": CUDA kernel launch failed: " + cudaGetErrorString(e));
}

// Calls f(T{}) with T the storage type of d.
template <typename F>
void with_type(DType d, F&& f) {
  switch (d) {
    case DType::kFloat: f(float{}); return;
    case DType::kBFloat16: f(__nv_bfloat16{}); return;
    case DType::kHalf: f(__half{}); return;
  }
  throw std::invalid_argument("runner CUDA kernels: unknown dtype code " + std::to_string(static_cast<int>(d)));  // never launch nothing silently
}

inline int grid_for(int64_t n, int threads) {
  const int64_t blocks = (n + threads - 1) / threads;
  return static_cast<int>(blocks < 65536 ? (blocks > 0 ? blocks : 1) : 65536);  // grid-stride loops do the rest
}

}  // namespace runner::kernels::cuda
