// HF's LlamaRMSNorm, one block per row: r = rsqrt(mean(x²) + eps) in float, y = w·(x·r stored
// in x's dtype), the product stored in the promoted dtype of w and x, as HF's ops store each
// result. Backward takes d x per row and d w as per-block partial sums reduced in block order
// (deterministic), from the saved x and r only.
#include <type_traits>

#include "runtime/kernels/cuda/common.cuh"

namespace runner::kernels::cuda {

namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 512;  // backward's partial sums: at most kMaxBlocks × cols floats

template <typename Tx, typename Tw>
using Promoted = std::conditional_t<std::is_same_v<Tx, Tw>, Tx, float>;

template <typename Tx, typename Tw>
__global__ void forward_kernel(const Tx* __restrict__ x, const Tw* __restrict__ w, Promoted<Tx, Tw>* __restrict__ y, float* __restrict__ rstd,
                               int64_t rows, int64_t cols, float inv_cols, float eps) {
  using Ty = Promoted<Tx, Tw>;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const Tx* xr = x + row * cols;
    float ss = 0.0f;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
      const float v = to_float(xr[j]);
      ss = __fadd_rn(ss, __fmul_rn(v, v));  // squares rounded before they are summed, as pow's output is
    }
    const float r = rsqrtf(__fmul_rn(block_sum(ss), inv_cols) + eps);  // ATen's mean: the sum times 1/cols
    if (threadIdx.x == 0) rstd[row] = r;
    Ty* yr = y + row * cols;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x)
      yr[j] = from_float<Ty>(__fmul_rn(round_to<Ty>(to_float(w[j])), round_to<Tx>(__fmul_rn(to_float(xr[j]), r))));
  }
}

// d n = (dy·w stored in the promoted dtype, then in x's); d x = r·dn − x·r³·mean(dn·x);
// d w += dy·n, n = x·r stored in x's dtype, into this block's row of `partial` (written on the
// block's first row, so it needs no zeroing; null when d w is not wanted).
template <typename Tx, typename Tw>
__global__ void backward_kernel(const Promoted<Tx, Tw>* __restrict__ dy, const Tx* __restrict__ x, const Tw* __restrict__ w,
                                const float* __restrict__ rstd, Tx* __restrict__ dx, float* __restrict__ partial, int64_t rows, int64_t cols) {
  using Ty = Promoted<Tx, Tw>;
  float* mine = partial ? partial + blockIdx.x * cols : nullptr;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const bool first = row == blockIdx.x;
    const Tx* xr = x + row * cols;
    const Ty* gr = dy + row * cols;
    const float r = rstd[row];
    float dot = 0.0f;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
      const float dn = round_to<Tx>(round_to<Ty>(__fmul_rn(to_float(gr[j]), to_float(w[j]))));
      dot += dn * to_float(xr[j]);
    }
    const float c = r * r * r * (block_sum(dot) / static_cast<float>(cols));
    Tx* dxr = dx + row * cols;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
      const float xv = to_float(xr[j]), g = to_float(gr[j]);
      const float dn = round_to<Tx>(round_to<Ty>(__fmul_rn(g, to_float(w[j]))));
      dxr[j] = from_float<Tx>(__fsub_rn(__fmul_rn(dn, r), __fmul_rn(xv, c)));
      if (mine) {
        const float term = round_to<Ty>(__fmul_rn(g, round_to<Tx>(__fmul_rn(xv, r))));
        mine[j] = first ? term : mine[j] + term;
      }
    }
  }
}

template <typename Tw>
__global__ void sum_partials_kernel(const float* __restrict__ partial, Tw* __restrict__ dw, int64_t blocks, int64_t cols) {
  for (int64_t j = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; j < cols; j += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    float s = 0.0f;
    for (int64_t b = 0; b < blocks; ++b) s += partial[b * cols + j];
    dw[j] = from_float<Tw>(s);
  }
}

template <typename F>
void with_types(DType tx, DType tw, DType ty, const char* what, F&& f) {
  with_type(tx, [&](auto x_zero) {
    with_type(tw, [&](auto w_zero) {
      using Tx = decltype(x_zero);
      using Tw = decltype(w_zero);
      const DType promoted = tx == tw ? tx : DType::kFloat;
      if (ty != promoted) throw std::invalid_argument(std::string(what) + ": the output dtype must be the promoted dtype of x and w");
      f(Tx{}, Tw{});
    });
  });
}

}  // namespace

void rms_norm_forward(const void* x, DType tx, const void* w, DType tw, void* y, DType ty, float* rstd, int64_t rows, int64_t cols, float eps,
                      void* stream) {
  if (rows == 0 || cols == 0) return;
  with_types(tx, tw, ty, "rms_norm forward", [&](auto x_zero, auto w_zero) {
    using Tx = decltype(x_zero);
    using Tw = decltype(w_zero);
    const int grid = static_cast<int>(rows < (1LL << 30) ? rows : (1LL << 30));
    forward_kernel<Tx, Tw><<<grid, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
        static_cast<const Tx*>(x), static_cast<const Tw*>(w), static_cast<Promoted<Tx, Tw>*>(y), rstd, rows, cols,
        static_cast<float>(rows) / static_cast<float>(rows * cols), eps);
  });
  check_launch("rms_norm forward");
}

int64_t rms_norm_backward_blocks(int64_t rows) { return rows < kMaxBlocks ? (rows > 0 ? rows : 1) : kMaxBlocks; }

void rms_norm_backward(const void* dy, DType ty, const void* x, DType tx, const void* w, DType tw, const float* rstd, void* dx, void* dw,
                       float* partial, int64_t rows, int64_t cols, void* stream) {
  if (cols == 0) return;
  const int64_t blocks = rms_norm_backward_blocks(rows);
  with_types(tx, tw, ty, "rms_norm backward", [&](auto x_zero, auto w_zero) {
    using Tx = decltype(x_zero);
    using Tw = decltype(w_zero);
    const auto s = static_cast<cudaStream_t>(stream);
    if (rows == 0) return;  // the caller zero-fills d w
    backward_kernel<Tx, Tw><<<static_cast<int>(blocks), kThreads, 0, s>>>(static_cast<const Promoted<Tx, Tw>*>(dy), static_cast<const Tx*>(x),
                                                                         static_cast<const Tw*>(w), rstd, static_cast<Tx*>(dx), dw ? partial : nullptr,
                                                                         rows, cols);
    if (dw) sum_partials_kernel<Tw><<<grid_for(cols, kThreads), kThreads, 0, s>>>(partial, static_cast<Tw*>(dw), blocks, cols);
  });
  check_launch("rms_norm backward");
}

}  // namespace runner::kernels::cuda
