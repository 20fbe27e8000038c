#include "runtime/kernels/rotary.h"

#include <ATen/Functions.h>
#include <ATen/Parallel.h>
#include <ATen/TensorOperators.h>
#include <c10/util/Exception.h>
#include <torch/csrc/autograd/custom_function.h>

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

at::Tensor run(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin, bool forward) {
  // empty_like keeps x's layout: the (B, T, H, D) memory of a transposed projection stays so.
  at::Tensor y = at::empty_like(x);
  if (y.stride(3) != 1) y = at::empty(x.sizes(), x.options());
  const at::Tensor c = cos.contiguous(), s = sin.contiguous();
  if (forward) each_row(x, c, s, y, forward_row);
  else each_row(x, c, s, y, backward_row);
  return y;
}

class Rotary : public torch::autograd::Function<Rotary> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin) {
    ctx->save_for_backward({cos, sin});
    return run(x, cos, sin, true);
  }
  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx, torch::autograd::tensor_list grads) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &cos = saved[0], &sin = saved[1];
    at::Tensor g = grads[0];
    if (at::GradMode::is_enabled() || !rotary_is_fused(g, cos, sin)) {
      // create_graph, or an odd gradient: the transposed rotation as ATen ops (linear in g).
      const int64_t h = g.size(-1) / 2;
      const at::Tensor gs = g * sin.unsqueeze(1);
      return {g * cos.unsqueeze(1) + at::cat({gs.narrow(-1, h, h), -gs.narrow(-1, 0, h)}, -1), at::Tensor(), at::Tensor()};
    }
    return {run(g, cos, sin, false), at::Tensor(), at::Tensor()};
  }
};

}  // namespace

bool rotary_is_fused(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin) {
  const auto f32cpu = [](const at::Tensor& t) { return t.device().is_cpu() && t.scalar_type() == at::kFloat && !t.is_sparse(); };
  return f32cpu(x) && f32cpu(cos) && f32cpu(sin) && x.dim() == 4 && cos.dim() == 3 && cos.sizes() == sin.sizes() &&
         x.size(0) == cos.size(0) && x.size(2) == cos.size(1) && x.size(3) == cos.size(2) && x.size(3) % 2 == 0 && x.stride(3) == 1 &&
         !cos.requires_grad() && !sin.requires_grad();
}

at::Tensor rotary_reference(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin) {
  const int64_t half = x.size(-1) / 2;
  const at::Tensor rotated = at::cat({-x.narrow(-1, half, half), x.narrow(-1, 0, half)}, -1);
  return x * cos.unsqueeze(1) + rotated * sin.unsqueeze(1);
}

at::Tensor rotary(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin) {
  if (!rotary_is_fused(x, cos, sin)) return rotary_reference(x, cos, sin);
  if (!at::GradMode::is_enabled() || !x.requires_grad()) return run(x, cos, sin, true);
  return Rotary::apply(x, cos, sin);
}

}  // namespace runner::kernels
