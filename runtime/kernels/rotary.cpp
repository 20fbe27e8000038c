#include "runtime/kernels/rotary.h"

#include <ATen/Functions.h>
#include <ATen/Parallel.h>
#include <ATen/TensorOperators.h>
#include <c10/util/Exception.h>
#include <torch/csrc/autograd/custom_function.h>

#include "runtime/kernels/cuda_kernels.h"
#include "runtime/kernels/fused_switch.h"
#include "runtime/kernels/vector_math.h"

namespace runner::kernels {

namespace {

// One row of D = 2·h, with a product rounded before each sum as ATen's muls and add do
// (the file is compiled with -ffp-contract=off): the same numbers as HF's chain.
//   forward:  y1 = x1·c1 − x2·s1,   y2 = x2·c2 + x1·s2       (1: first half, 2: second half)
//   backward: d1 = g1·c1 + g2·s2,   d2 = g2·c2 − g1·s1       (the transposed rotation)
RUNNER_VECTORIZED_CLONES
void forward_row(const float* x, const float* c, const float* s, float* y, int64_t h) {
  for (int64_t j = 0; j < h; ++j) y[j] = x[j] * c[j] - x[j + h] * s[j];
  for (int64_t j = 0; j < h; ++j) y[j + h] = x[j + h] * c[j + h] + x[j] * s[j + h];
}

RUNNER_VECTORIZED_CLONES
void backward_row(const float* g, const float* c, const float* s, float* d, int64_t h) {
  for (int64_t j = 0; j < h; ++j) d[j] = g[j] * c[j] + g[j + h] * s[j + h];
  for (int64_t j = 0; j < h; ++j) d[j + h] = g[j + h] * c[j + h] - g[j] * s[j];
}

// Applies `row` to every (b, h, t) row of x into y (y shaped and strided like x); cos/sin
// are contiguous (B, T, D).
template <typename Row>
void each_row(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin, at::Tensor& y, Row row) {
  const int64_t B = x.size(0), H = x.size(1), T = x.size(2), D = x.size(3);
  const float *xp = x.data_ptr<float>(), *cp = cos.data_ptr<float>(), *sp = sin.data_ptr<float>();
  float* yp = y.data_ptr<float>();
  at::parallel_for(0, B * H * T, std::max<int64_t>(1, 16384 / D), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const int64_t b = i / (H * T), h = (i / T) % H, t = i % T;
      const int64_t cs = (b * T + t) * D;
      row(xp + b * x.stride(0) + h * x.stride(1) + t * x.stride(2), cp + cs, sp + cs, yp + b * y.stride(0) + h * y.stride(1) + t * y.stride(2),
          D / 2);
    }
  });
}

bool shapes_fit(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin) {
  return x.dim() == 4 && cos.dim() == 3 && cos.sizes() == sin.sizes() && cos.scalar_type() == sin.scalar_type() && x.size(0) == cos.size(0) &&
         x.size(2) == cos.size(1) && x.size(3) == cos.size(2) && x.size(3) % 2 == 0 && x.stride(3) == 1 && !x.is_sparse() &&
         !cos.requires_grad() && !sin.requires_grad();
}

// runner's CUDA kernel: float32/bf16/fp16 on one GPU.
bool on_cuda(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin) {
  return cuda::built() && x.is_cuda() && cos.device() == x.device() && sin.device() == x.device() && cuda::dtype(x.scalar_type()) &&
         cuda::dtype(cos.scalar_type()) && shapes_fit(x, cos, sin);
}

// forward: x → y in the promoted dtype; backward: x is the gradient (promoted dtype), the
// result is in `input_dtype`. The output has x's layout: empty_like keeps the (B, T, H, D)
// memory of a transposed projection.
at::Tensor run(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin, bool forward, at::ScalarType input_dtype) {
  const at::ScalarType out_dtype = forward ? at::promote_types(x.scalar_type(), cos.scalar_type()) : input_dtype;
  at::Tensor y = at::empty_like(x, x.options().dtype(out_dtype));
  if (y.stride(3) != 1) y = at::empty(x.sizes(), x.options().dtype(out_dtype));
  const at::Tensor c = cos.contiguous(), s = sin.contiguous();
  if (x.is_cuda()) {
    cuda::RotaryShape shape{x.size(0), x.size(1), x.size(2), x.size(3), {x.stride(0), x.stride(1), x.stride(2)}, {y.stride(0), y.stride(1), y.stride(2)}};
    const cuda::Launch on(x);
    cuda::rotary(x.data_ptr(), *cuda::dtype(input_dtype), c.data_ptr(), s.data_ptr(), *cuda::dtype(c.scalar_type()),
                 y.data_ptr(), *cuda::dtype(out_dtype), shape, forward, on.stream);
  } else if (forward) {
    each_row(x, c, s, y, forward_row);
  } else {
    each_row(x, c, s, y, backward_row);
  }
  return y;
}

class Rotary : public torch::autograd::Function<Rotary> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin) {
    ctx->save_for_backward({cos, sin});
    ctx->saved_data["dtype"] = static_cast<int64_t>(x.scalar_type());
    return run(x, cos, sin, true, x.scalar_type());
  }
  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx, torch::autograd::tensor_list grads) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &cos = saved[0], &sin = saved[1];
    at::Tensor g = grads[0];
    const auto dtype = static_cast<at::ScalarType>(ctx->saved_data["dtype"].toInt());
    const bool kernel = g.scalar_type() == at::promote_types(dtype, cos.scalar_type()) && (rotary_is_fused(g, cos, sin) || on_cuda(g, cos, sin));
    if (at::GradMode::is_enabled() || !kernel) {
      // create_graph, or an odd gradient: the transposed rotation as ATen ops (linear in g).
      const int64_t h = g.size(-1) / 2;
      const at::Tensor gs = g * sin.unsqueeze(1);
      return {(g * cos.unsqueeze(1)).to(dtype) + at::cat({gs.narrow(-1, h, h), -gs.narrow(-1, 0, h)}, -1).to(dtype), at::Tensor(), at::Tensor()};
    }
    return {run(g, cos, sin, false, dtype), at::Tensor(), at::Tensor()};
  }
};

}  // namespace

bool rotary_is_fused(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin) {
  const auto f32cpu = [](const at::Tensor& t) { return t.device().is_cpu() && t.scalar_type() == at::kFloat && !t.is_sparse(); };
  return f32cpu(x) && f32cpu(cos) && f32cpu(sin) && shapes_fit(x, cos, sin);
}

at::Tensor rotary_reference(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin) {
  const int64_t half = x.size(-1) / 2;
  const at::Tensor rotated = at::cat({-x.narrow(-1, half, half), x.narrow(-1, 0, half)}, -1);
  return x * cos.unsqueeze(1) + rotated * sin.unsqueeze(1);
}

at::Tensor rotary(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin) {
  if (!fused_kernels_enabled() || !(rotary_is_fused(x, cos, sin) || on_cuda(x, cos, sin))) return rotary_reference(x, cos, sin);
  if (!at::GradMode::is_enabled() || !x.requires_grad()) return run(x, cos, sin, true, x.scalar_type());
  return Rotary::apply(x, cos, sin);
}

}  // namespace runner::kernels
