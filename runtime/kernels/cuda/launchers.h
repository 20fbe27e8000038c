#pragma once
// The launchers of runner's CUDA kernels (the .cu files beside this header). Plain C++ with no
// CUDA or ATen headers, so nvcc compiles the kernels in seconds and a CPU build compiles the
// callers; runtime/kernels/cuda_kernels.h is the side the fused ops call them from. Pointers
// are device pointers of contiguous tensors unless said; each launch runs on `stream` (a
// cudaStream_t) and throws std::runtime_error when it fails.
#include <cstdint>

namespace runner::kernels::cuda {

enum class DType : int { kFloat, kBFloat16, kHalf };

// y = w · (x·r).to(x) per row, r = rsqrt(mean(x²) + eps) stored in rstd (rows). x, y (rows, cols).
void rms_norm_forward(const void* x, DType tx, const void* w, DType tw, void* y, DType ty, float* rstd, int64_t rows, int64_t cols,
                      float eps, void* stream);
// dx (x's dtype) and dw (w's dtype; null: not wanted); `partial` is (blocks, cols) floats of
// scratch, blocks = rms_norm_backward_blocks(rows). With no rows, nothing is written.
int64_t rms_norm_backward_blocks(int64_t rows);
void rms_norm_backward(const void* dy, DType ty, const void* x, DType tx, const void* w, DType tw, const float* rstd, void* dx, void* dw,
                       float* partial, int64_t rows, int64_t cols, void* stream);

// LayerNorm of each row of x (rows, cols) into y of another dtype (autocast's low one): y =
// (x − mean)·rstd·w + b in float, w and b (cols, one dtype; either may be null: 1 and 0),
// mean and rstd (rows) saved. Backward: dx (x's dtype) from dy (y's dtype); dw and db (w's
// dtype; null: not wanted) from `partial`, (2·blocks, cols) floats of scratch with blocks =
// layer_norm_backward_blocks(rows). With no rows, nothing is written.
void layer_norm_forward(const void* x, DType tx, const void* w, const void* b, DType tw, void* y, DType ty, float* mean, float* rstd,
                        int64_t rows, int64_t cols, float eps, void* stream);
int64_t layer_norm_backward_blocks(int64_t rows);
void layer_norm_backward(const void* dy, DType ty, const void* x, DType tx, const void* w, DType tw, const float* mean, const float* rstd,
                         void* dx, void* dw, void* db, float* partial, int64_t rows, int64_t cols, void* stream);

// y = silu(g)·u and its gradients, n elements of one dtype.
void swiglu_forward(const void* g, const void* u, void* y, DType t, int64_t n, void* stream);
void swiglu_backward(const void* dy, const void* g, const void* u, void* dg, void* du, DType t, int64_t n, void* stream);

// Rotary embedding of x (B, H, T, D) with strides xs (D's stride 1) into y with strides ys;
// cos/sin contiguous (B, T, D). forward: y = x·cos + rotate_half(x)·sin, the output in the
// promoted dtype; backward: x is the gradient (promoted dtype), y the input's gradient.
struct RotaryShape {
  int64_t b, h, t, d;
  int64_t xs[3], ys[3];  // strides of dims 0..2
};
void rotary(const void* x, DType tx, const void* cos, const void* sin, DType tc, void* y, DType ty, const RotaryShape& shape, bool forward,
            void* stream);

// Softmax cross-entropy of each row of z (rows, cols; row r starts at z + r·ld, ld ≥ cols), in
// place: loss[row] (float) = logsumexp(z[row]) − z[row, labels[row]], 0 where labels[row] ==
// ignore_index; with `grad`, z becomes softmax − one-hot per row (zero rows where ignored).
// labels: rows int64 values. The ld − cols elements after each row are not touched.
void cross_entropy_rows(void* z, DType t, int64_t rows, int64_t cols, int64_t ld, const int64_t* labels, int64_t ignore_index, float* loss,
                        bool grad, void* stream);

}  // namespace runner::kernels::cuda
