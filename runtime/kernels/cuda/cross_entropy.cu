// One chunk of the fused linear cross-entropy (linear_cross_entropy.cpp): per row of the
// chunk's logits z (rows, cols; row r starts at z + r·ld, ld padded so rows stay aligned), in
// two passes and in place, its log-sum-exp (an online max and sum, in float), its loss
// lse − z[label], and (when asked) the gradient of that loss, softmax − one-hot, written over
// the logits in their dtype. ATen's chain for the same does z.float(), logsumexp, sub, exp,
// scatter, masked_fill and a cast: seven passes over an fp32 copy of the chunk instead of two
// over the logits. A row whose label is ignored gets loss 0 and a zero gradient without its
// logits being read, so whatever they hold (inf or NaN, at a padded position) never reaches
// the loss, as the ATen path's where() keeps it out. One block per row.
#include <cmath>

#include "runtime/kernels/cuda/common.cuh"

namespace runner::kernels::cuda {

namespace {

constexpr int kThreads = 512;

// (m, s) with s = Σ exp(v − m) over what it has seen: two of them as one. Equal maxima add
// (both −inf, or both +inf, where m − top would be NaN); otherwise the smaller side is scaled,
// and a NaN sum on either side stays NaN (exp(−inf) · NaN is NaN).
__device__ __forceinline__ void merge(float& m, float& s, float m2, float s2) {
  if (m == m2) {
    s += s2;
    return;
  }
  const float top = fmaxf(m, m2);
  s = s * expf(m - top) + s2 * expf(m2 - top);
  m = top;
}

// The block's merged (m, s), returned to every thread.
__device__ __forceinline__ void block_merge(float& m, float& s) {
  __shared__ float warp_m[32], warp_s[32];
  for (int o = 16; o > 0; o /= 2) merge(m, s, __shfl_xor_sync(0xffffffffu, m, o), __shfl_xor_sync(0xffffffffu, s, o));
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) {
    warp_m[warp] = m;
    warp_s[warp] = s;
  }
  __syncthreads();
  if (warp == 0) {
    m = lane < static_cast<int>(blockDim.x / 32) ? warp_m[lane] : -INFINITY;
    s = lane < static_cast<int>(blockDim.x / 32) ? warp_s[lane] : 0.0f;
    for (int o = 16; o > 0; o /= 2) merge(m, s, __shfl_xor_sync(0xffffffffu, m, o), __shfl_xor_sync(0xffffffffu, s, o));
    if (lane == 0) {
      warp_m[0] = m;
      warp_s[0] = s;
    }
  }
  __syncthreads();
  m = warp_m[0];
  s = warp_s[0];
  __syncthreads();  // the next row's call may overwrite them
}

template <typename T>
__global__ void rows_kernel(T* __restrict__ z, int64_t rows, int64_t cols, int64_t ld, const int64_t* __restrict__ labels,
                            int64_t ignore_index, float* __restrict__ loss, bool grad) {
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    T* zr = z + row * ld;
    const int64_t label = labels[row];
    if (label == ignore_index) {
      if (threadIdx.x == 0) loss[row] = 0.0f;
      if (grad)
        for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) zr[j] = from_float<T>(0.0f);
      continue;
    }
    // A NaN logit makes s NaN for good (NaN compares false, exp(NaN) is NaN, 0 · NaN is NaN):
    // the row's loss is then NaN, as ATen's logsumexp makes it.
    float m = -INFINITY, s = 0.0f;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
      const float v = to_float(zr[j]);
      if (v > m) {
        s = s * expf(m - v) + 1.0f;
        m = v;
      } else if (v != -INFINITY) {
        s += v == m ? 1.0f : expf(v - m);
      }
    }
    // The models range-check labels on the host batch; a stray label from another caller gives
    // a NaN loss here, never a read outside the row. Read before the row is overwritten.
    const bool in_range = label >= 0 && label < cols;
    const float picked = threadIdx.x == 0 && in_range ? to_float(zr[label]) : 0.0f;
    block_merge(m, s);  // its barriers also order the read above before pass 2's writes
    const float lse = m + logf(s);
    if (threadIdx.x == 0) loss[row] = in_range ? lse - picked : NAN;
    if (!grad) continue;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
      const float p = expf(to_float(zr[j]) - lse);
      zr[j] = from_float<T>(j == label ? p - 1.0f : p);
    }
  }
}

}  // namespace

void cross_entropy_rows(void* z, DType t, int64_t rows, int64_t cols, int64_t ld, const int64_t* labels, int64_t ignore_index, float* loss,
                        bool grad, void* stream) {
  if (rows == 0) return;
  const int blocks = static_cast<int>(rows < 65535 ? rows : 65535);  // the row loop does the rest
  with_type(t, [&](auto zero) {
    using T = decltype(zero);
    rows_kernel<T><<<blocks, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(static_cast<T*>(z), rows, cols, ld, labels, ignore_index,
                                                                               loss, grad);
  });
  check_launch("cross_entropy_rows");
}

}  // namespace runner::kernels::cuda
