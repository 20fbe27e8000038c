#include "runtime/kernels/gelu.h"

#include <ATen/Functions.h>
#include <ATen/Parallel.h>
#include <c10/util/Exception.h>
#include <torch/csrc/autograd/custom_function.h>

#include "runtime/kernels/fused_switch.h"
#include "runtime/kernels/vector_math.h"

namespace runner::kernels {

namespace {

// gelu_tanh(x) = 0.5·x·(1 + tanh(u)), u = √(2/π)·(x + 0.044715·x³). Since 0.5·(1 + tanh(u))
// = σ(2u), it is x·σ(2u): one exponential, no tanh, and no cancellation in 1 + tanh(u).
constexpr float kTwoSqrtTwoOverPi = 1.5957691216057308f;  // 2·√(2/π)
constexpr float kCubic = 0.044715f;

RUNNER_VECTORIZED_CLONES
void forward_loop(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i];
    y[i] = v * vmath::sigmoid(kTwoSqrtTwoOverPi * (v + kCubic * v * v * v));
  }
}

// d/dx x·σ(z(x)) = σ + x·σ(1 − σ)·z'(x), z' = 2·√(2/π)·(1 + 3·0.044715·x²). 1 − σ is taken
// as e·σ (e = e^-z), not by subtraction, which would round it to 0 or 6e-8 where σ is near 1.
// Beyond |x| = 20 the second term is 0 in float; clamping x there keeps x² finite so 0·∞
// never makes a NaN.
RUNNER_VECTORIZED_CLONES
void backward_loop(const float* g, const float* x, float* dx, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i];
    const float e = vmath::exp(-kTwoSqrtTwoOverPi * (v + kCubic * v * v * v));
    const float s = 1.0f / (1.0f + e);
    float c = v < -20.0f ? -20.0f : v;
    c = c > 20.0f ? 20.0f : c;
    const float dz = kTwoSqrtTwoOverPi * (1.0f + 3.0f * kCubic * c * c);
    const float s_one_minus_s = e == __builtin_inff() ? 0.0f : s * s * e;  // e = ∞: σ = 0
    dx[i] = g[i] * (s + v * s_one_minus_s * dz);
  }
}

// Chunks big enough that a thread's start-up is paid back, small enough to share the work.
constexpr int64_t kGrain = 16384;

class GeluTanh : public torch::autograd::Function<GeluTanh> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& x) {
    ctx->save_for_backward({x});
    return gelu_tanh_forward_cpu(x);
  }
  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx, torch::autograd::tensor_list grads) {
    const at::Tensor x = ctx->get_saved_variables()[0];
    // create_graph (double backward): ATen's formula, which autograd can differentiate again.
    if (at::GradMode::is_enabled()) return {at::gelu_backward(grads[0], x, "tanh")};
    return {gelu_tanh_backward_cpu(grads[0], x)};
  }
};

}  // namespace

bool gelu_tanh_is_fused(const at::Tensor& x) { return x.device().is_cpu() && x.scalar_type() == at::kFloat && !x.is_sparse(); }

at::Tensor gelu_tanh_forward_cpu(const at::Tensor& x_in) {
  TORCH_CHECK(gelu_tanh_is_fused(x_in), "gelu_tanh_forward_cpu: a CPU float32 tensor expected");
  const at::Tensor x = x_in.contiguous();
  at::Tensor y = at::empty_like(x, at::MemoryFormat::Contiguous);
  const float* xp = x.data_ptr<float>();
  float* yp = y.data_ptr<float>();
  at::parallel_for(0, x.numel(), kGrain, [&](int64_t b, int64_t e) { forward_loop(xp + b, yp + b, e - b); });
  return y;
}

at::Tensor gelu_tanh_backward_cpu(const at::Tensor& grad_in, const at::Tensor& x_in) {
  TORCH_CHECK(gelu_tanh_is_fused(x_in) && grad_in.scalar_type() == at::kFloat && grad_in.device().is_cpu(),
              "gelu_tanh_backward_cpu: CPU float32 tensors expected");
  TORCH_CHECK(grad_in.sizes() == x_in.sizes(), "gelu_tanh_backward_cpu: grad and input shapes differ");
  const at::Tensor x = x_in.contiguous(), g = grad_in.contiguous();
  at::Tensor dx = at::empty_like(x, at::MemoryFormat::Contiguous);
  const float *xp = x.data_ptr<float>(), *gp = g.data_ptr<float>();
  float* dp = dx.data_ptr<float>();
  at::parallel_for(0, x.numel(), kGrain, [&](int64_t b, int64_t e) { backward_loop(gp + b, xp + b, dp + b, e - b); });
  return dx;
}

at::Tensor gelu_tanh(const at::Tensor& x) {
  if (!gelu_tanh_is_fused(x) || !fused_kernels_enabled()) return at::gelu(x, "tanh");
  if (!x.requires_grad() || !at::GradMode::is_enabled()) return gelu_tanh_forward_cpu(x);
  return GeluTanh::apply(x);
}

}  // namespace runner::kernels
