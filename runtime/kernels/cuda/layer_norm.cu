// LayerNorm over each row, written in autocast's low dtype: the numbers of ATen's autocast
// chain (x, weight and bias upcast to float, layer_norm in float, the result cast down by the
// matmul that reads it), in one pass that stores the low-dtype result directly. One block per
// row: the mean, then the variance about it (two passes over the row, which stays in cache),
// y = (x − mean)·rstd·w + b in float. Backward takes d x per row from the saved x, mean and
// rstd, and d w / d b as per-block partial sums reduced in block order (deterministic).
#include "runtime/kernels/cuda/common.cuh"

namespace runner::kernels::cuda {

namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 512;  // backward's partial sums: at most 2 · kMaxBlocks × cols floats

template <typename Tw>
__device__ __forceinline__ float weight_at(const Tw* w, int64_t j) { return w ? to_float(w[j]) : 1.0f; }
template <typename Tw>
__device__ __forceinline__ float bias_at(const Tw* b, int64_t j) { return b ? to_float(b[j]) : 0.0f; }

template <typename Tx, typename Tw, typename Ty>
__global__ void forward_kernel(const Tx* __restrict__ x, const Tw* __restrict__ w, const Tw* __restrict__ b, Ty* __restrict__ y,
                               float* __restrict__ mean_out, float* __restrict__ rstd_out, int64_t rows, int64_t cols, float eps) {
  const float inv_cols = 1.0f / static_cast<float>(cols);
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const Tx* xr = x + row * cols;
    float s = 0.0f;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) s += to_float(xr[j]);
    const float mean = block_sum(s) * inv_cols;
    float sq = 0.0f;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
      const float d = to_float(xr[j]) - mean;
      sq += d * d;
    }
    const float rstd = rsqrtf(block_sum(sq) * inv_cols + eps);  // the biased variance, as ATen's
    if (threadIdx.x == 0) {
      mean_out[row] = mean;
      rstd_out[row] = rstd;
    }
    Ty* yr = y + row * cols;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x)
      yr[j] = from_float<Ty>((to_float(xr[j]) - mean) * rstd * weight_at(w, j) + bias_at(b, j));
  }
}

// g = dy·w; d x = rstd·(g − mean(g) − x̂·mean(g·x̂)), x̂ = (x − mean)·rstd; d w += dy·x̂ and
// d b += dy into this block's rows of `partial` (written on the block's first row, so they need
// no zeroing; null when neither is wanted).
template <typename Tx, typename Tw, typename Ty>
__global__ void backward_kernel(const Ty* __restrict__ dy, const Tx* __restrict__ x, const Tw* __restrict__ w, const float* __restrict__ mean,
                                const float* __restrict__ rstd, Tx* __restrict__ dx, float* __restrict__ partial, int64_t rows, int64_t cols) {
  const float inv_cols = 1.0f / static_cast<float>(cols);
  float* pw = partial ? partial + (2 * static_cast<int64_t>(blockIdx.x)) * cols : nullptr;
  float* pb = partial ? pw + cols : nullptr;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const bool first = row == blockIdx.x;
    const Tx* xr = x + row * cols;
    const Ty* gr = dy + row * cols;
    const float m = mean[row], r = rstd[row];
    // g and x̂ rounded the same way in both loops (no FMA contraction): where the terms cancel
    // exactly (a row of one column, a constant row) d x is exactly 0, as in ATen, not
    // rstd times a rounding error.
    float sg = 0.0f, sgx = 0.0f;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
      const float g = __fmul_rn(to_float(gr[j]), weight_at(w, j)), xhat = __fmul_rn(__fsub_rn(to_float(xr[j]), m), r);
      sg += g;
      sgx += g * xhat;
    }
    const float mg = block_sum(sg) * inv_cols, mgx = block_sum(sgx) * inv_cols;
    Tx* dxr = dx + row * cols;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
      const float d = to_float(gr[j]), g = __fmul_rn(d, weight_at(w, j)), xhat = __fmul_rn(__fsub_rn(to_float(xr[j]), m), r);
      dxr[j] = from_float<Tx>(__fmul_rn(r, __fsub_rn(__fsub_rn(g, mg), __fmul_rn(xhat, mgx))));
      if (pw) {
        pw[j] = first ? d * xhat : pw[j] + d * xhat;
        pb[j] = first ? d : pb[j] + d;
      }
    }
  }
}

// d w (and d b) of each column: the blocks' partial sums in block order.
template <typename Tw>
__global__ void sum_partials_kernel(const float* __restrict__ partial, Tw* __restrict__ dw, Tw* __restrict__ db, int64_t blocks, int64_t cols) {
  for (int64_t j = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; j < cols; j += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    float sw = 0.0f, sb = 0.0f;
    for (int64_t k = 0; k < blocks; ++k) {
      sw += partial[(2 * k) * cols + j];
      sb += partial[(2 * k + 1) * cols + j];
    }
    if (dw) dw[j] = from_float<Tw>(sw);
    if (db) db[j] = from_float<Tw>(sb);
  }
}

template <typename F>
void with_types(DType tx, DType tw, DType ty, F&& f) {
  with_type(tx, [&](auto x_zero) {
    with_type(tw, [&](auto w_zero) {
      with_type(ty, [&](auto y_zero) { f(decltype(x_zero){}, decltype(w_zero){}, decltype(y_zero){}); });
    });
  });
}

}  // namespace

void layer_norm_forward(const void* x, DType tx, const void* w, const void* b, DType tw, void* y, DType ty, float* mean, float* rstd,
                        int64_t rows, int64_t cols, float eps, void* stream) {
  if (rows == 0 || cols == 0) return;
  with_types(tx, tw, ty, [&](auto x_zero, auto w_zero, auto y_zero) {
    using Tx = decltype(x_zero);
    using Tw = decltype(w_zero);
    using Ty = decltype(y_zero);
    const int grid = static_cast<int>(rows < (1LL << 30) ? rows : (1LL << 30));
    forward_kernel<Tx, Tw, Ty><<<grid, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
        static_cast<const Tx*>(x), static_cast<const Tw*>(w), static_cast<const Tw*>(b), static_cast<Ty*>(y), mean, rstd, rows, cols, eps);
  });
  check_launch("layer_norm forward");
}

int64_t layer_norm_backward_blocks(int64_t rows) { return rows < kMaxBlocks ? (rows > 0 ? rows : 1) : kMaxBlocks; }

void layer_norm_backward(const void* dy, DType ty, const void* x, DType tx, const void* w, DType tw, const float* mean, const float* rstd,
                         void* dx, void* dw, void* db, float* partial, int64_t rows, int64_t cols, void* stream) {
  if (rows == 0 || cols == 0) return;  // the caller zero-fills d w and d b
  const int64_t blocks = layer_norm_backward_blocks(rows);
  const bool sums = dw || db;
  with_types(tx, tw, ty, [&](auto x_zero, auto w_zero, auto y_zero) {
    using Tx = decltype(x_zero);
    using Tw = decltype(w_zero);
    using Ty = decltype(y_zero);
    const auto s = static_cast<cudaStream_t>(stream);
    backward_kernel<Tx, Tw, Ty><<<static_cast<int>(blocks), kThreads, 0, s>>>(static_cast<const Ty*>(dy), static_cast<const Tx*>(x),
                                                                             static_cast<const Tw*>(w), mean, rstd, static_cast<Tx*>(dx),
                                                                             sums ? partial : nullptr, rows, cols);
    if (sums)
      sum_partials_kernel<Tw><<<grid_for(cols, kThreads), kThreads, 0, s>>>(partial, static_cast<Tw*>(dw), static_cast<Tw*>(db), blocks, cols);
  });
  check_launch("layer_norm backward");
}

}  // namespace runner::kernels::cuda
