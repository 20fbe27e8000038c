// Rotary embeddings, one thread per (row, j < D/2) pair, both halves at once, with the
// roundings of HF's chain: each product stored in the promoted dtype P of x and cos (x·cos,
// rotate_half(x)·sin), their sum in P. Backward is the transposed rotation with autograd's
// roundings: each product in P, then stored in x's dtype, summed in x's dtype.
#include <type_traits>

#include "runtime/kernels/cuda/common.cuh"

namespace runner::kernels::cuda {

namespace {

template <typename Tx, typename Tc>
using Promoted = std::conditional_t<std::is_same_v<Tx, Tc>, Tx, float>;

// forward: In = Tx, Out = P; backward: In = P (the gradient), Out = Tx.
template <typename Tx, typename Tc, bool kForward>
__global__ void rotary_kernel(const std::conditional_t<kForward, Tx, Promoted<Tx, Tc>>* __restrict__ in, const Tc* __restrict__ cos,
                              const Tc* __restrict__ sin, std::conditional_t<kForward, Promoted<Tx, Tc>, Tx>* __restrict__ out, RotaryShape s) {
  using P = Promoted<Tx, Tc>;
  using Out = std::conditional_t<kForward, P, Tx>;
  const int64_t half = s.d / 2, total = s.b * s.h * s.t * half;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total; i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    const int64_t j = i % half, row = i / half;
    const int64_t t = row % s.t, h = (row / s.t) % s.h, b = row / (s.t * s.h);
    const int64_t cs = (b * s.t + t) * s.d;
    const int64_t io = b * s.xs[0] + h * s.xs[1] + t * s.xs[2], oo = b * s.ys[0] + h * s.ys[1] + t * s.ys[2];
    const float a1 = to_float(in[io + j]), a2 = to_float(in[io + j + half]);
    const float c1 = to_float(cos[cs + j]), c2 = to_float(cos[cs + j + half]);
    const float s1 = to_float(sin[cs + j]), s2 = to_float(sin[cs + j + half]);
    if constexpr (kForward) {
      // y1 = x1·c1 + (−x2)·s1,  y2 = x2·c2 + x1·s2
      out[oo + j] = from_float<Out>(__fsub_rn(round_to<P>(__fmul_rn(a1, c1)), round_to<P>(__fmul_rn(a2, s1))));
      out[oo + j + half] = from_float<Out>(__fadd_rn(round_to<P>(__fmul_rn(a2, c2)), round_to<P>(__fmul_rn(a1, s2))));
    } else {
      // d1 = g1·c1 + g2·s2,  d2 = g2·c2 − g1·s1
      const float g1c1 = round_to<Tx>(round_to<P>(__fmul_rn(a1, c1))), g2s2 = round_to<Tx>(round_to<P>(__fmul_rn(a2, s2)));
      const float g2c2 = round_to<Tx>(round_to<P>(__fmul_rn(a2, c2))), g1s1 = round_to<Tx>(round_to<P>(__fmul_rn(a1, s1)));
      out[oo + j] = from_float<Out>(__fadd_rn(g1c1, g2s2));
      out[oo + j + half] = from_float<Out>(__fsub_rn(g2c2, g1s1));
    }
  }
}

constexpr int kThreads = 256;

}  // namespace

void rotary(const void* x, DType tx, const void* cos, const void* sin, DType tc, void* y, DType ty, const RotaryShape& shape, bool forward,
            void* stream) {
  const int64_t total = shape.b * shape.h * shape.t * (shape.d / 2);
  if (total == 0) return;
  const DType promoted = tx == tc ? tx : DType::kFloat;
  if (ty != (forward ? promoted : tx)) throw std::invalid_argument("rotary: the output dtype must be the promoted dtype forward, x's backward");
  with_type(tx, [&](auto x_zero) {
    with_type(tc, [&](auto c_zero) {
      using Tx = decltype(x_zero);
      using Tc = decltype(c_zero);
      using P = Promoted<Tx, Tc>;
      const auto st = static_cast<cudaStream_t>(stream);
      const int grid = grid_for(total, kThreads);
      if (forward)
        rotary_kernel<Tx, Tc, true><<<grid, kThreads, 0, st>>>(static_cast<const Tx*>(x), static_cast<const Tc*>(cos),
                                                               static_cast<const Tc*>(sin), static_cast<P*>(y), shape);
      else
        rotary_kernel<Tx, Tc, false><<<grid, kThreads, 0, st>>>(static_cast<const P*>(x), static_cast<const Tc*>(cos),
                                                                static_cast<const Tc*>(sin), static_cast<Tx*>(y), shape);
    });
  });
  check_launch(forward ? "rotary forward" : "rotary backward");
}

}  // namespace runner::kernels::cuda
