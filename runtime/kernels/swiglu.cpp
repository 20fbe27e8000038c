#include "runtime/kernels/swiglu.h"

#include <ATen/Functions.h>
#include <ATen/Parallel.h>
#include <ATen/TensorOperators.h>
#include <c10/util/Exception.h>
#include <torch/csrc/autograd/autograd.h>
#include <torch/csrc/autograd/custom_function.h>

#include "runtime/kernels/cuda_kernels.h"
#include "runtime/kernels/fused_switch.h"
#include "runtime/kernels/vector_math.h"

namespace runner::kernels {

namespace {

// The same two roundings as ATen's silu then mul: s = g·σ(g), y = s·u.
RUNNER_VECTORIZED_CLONES
void forward_loop(const float* g, const float* u, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float v = g[i];
    y[i] = (v / (1.0f + vmath::exp(-v))) * u[i];
  }
}

// d up = dy·silu(g); d gate = (dy·u)·σ(g)·(1 + g·(1 − σ(g))), ATen's silu_backward formula
// applied to mul's gradient, with 1 − σ taken as e^-g·σ.
RUNNER_VECTORIZED_CLONES
void backward_loop(const float* dy, const float* g, const float* u, float* dg, float* du, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float v = g[i];
    const float e = vmath::exp(-v);
    const float s = 1.0f / (1.0f + e);
    du[i] = dy[i] * (v / (1.0f + e));
    const float one_minus_s = e == __builtin_inff() ? 1.0f : e * s;  // not 1 − s, which rounds to 0 near s = 1
    dg[i] = (dy[i] * u[i]) * (s * (1.0f + v * one_minus_s));
  }
}

constexpr int64_t kGrain = 16384;

bool same_layout(const at::Tensor& a, const at::Tensor& b) {
  return a.sizes() == b.sizes() && a.scalar_type() == b.scalar_type() && a.device() == b.device() && !a.is_sparse() && !b.is_sparse();
}

// runner's CUDA kernels take same-shaped float32/bf16/fp16 tensors on one GPU.
bool on_cuda(const at::Tensor& gate, const at::Tensor& up) {
  return cuda::built() && gate.is_cuda() && same_layout(gate, up) && cuda::dtype(gate.scalar_type()).has_value();
}

at::Tensor forward_cuda(const at::Tensor& gate_in, const at::Tensor& up_in) {
  const at::Tensor gate = gate_in.contiguous(), up = up_in.contiguous();
  at::Tensor y = at::empty_like(gate, at::MemoryFormat::Contiguous);
  const cuda::Launch on(gate);
  cuda::swiglu_forward(gate.data_ptr(), up.data_ptr(), y.data_ptr(), *cuda::dtype(gate.scalar_type()), gate.numel(), on.stream);
  return y;
}

std::pair<at::Tensor, at::Tensor> backward_cuda(const at::Tensor& dy_in, const at::Tensor& gate_in, const at::Tensor& up_in) {
  const at::Tensor dy = dy_in.contiguous(), gate = gate_in.contiguous(), up = up_in.contiguous();
  at::Tensor d_gate = at::empty_like(gate, at::MemoryFormat::Contiguous), d_up = at::empty_like(up, at::MemoryFormat::Contiguous);
  const cuda::Launch on(gate);
  cuda::swiglu_backward(dy.data_ptr(), gate.data_ptr(), up.data_ptr(), d_gate.data_ptr(), d_up.data_ptr(), *cuda::dtype(gate.scalar_type()),
                        gate.numel(), on.stream);
  return {d_gate, d_up};
}

class SwiGLU : public torch::autograd::Function<SwiGLU> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& gate, const at::Tensor& up) {
    ctx->save_for_backward({gate, up});
    return swiglu_values(gate, up);
  }
  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx, torch::autograd::tensor_list grads) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &gate = saved[0], &up = saved[1], &dy = grads[0];
    const bool want_gate = ctx->needs_input_grad(0), want_up = ctx->needs_input_grad(1);
    if (at::GradMode::is_enabled()) {
      // create_graph: differentiate ATen's ops, so the gradients are differentiable again
      // (silu_backward itself has no derivative).
      std::vector<at::Tensor> wrt;
      if (want_gate) wrt.push_back(gate);
      if (want_up) wrt.push_back(up);
      const auto g = torch::autograd::grad({at::silu(gate) * up}, wrt, {dy}, /*retain_graph=*/true, /*create_graph=*/true);
      return {want_gate ? g[0] : at::Tensor(), want_up ? g.back() : at::Tensor()};
    }
    auto [d_gate, d_up] = swiglu_grads(dy, gate, up, want_gate, want_up);
    return {d_gate, d_up};
  }
};

}  // namespace

bool swiglu_is_fused(const at::Tensor& gate, const at::Tensor& up) {
  return same_layout(gate, up) && gate.device().is_cpu() && gate.scalar_type() == at::kFloat;
}

at::Tensor swiglu_forward_cpu(const at::Tensor& gate_in, const at::Tensor& up_in) {
  TORCH_CHECK(swiglu_is_fused(gate_in, up_in), "swiglu_forward_cpu: CPU float32 tensors of one shape expected");
  const at::Tensor gate = gate_in.contiguous(), up = up_in.contiguous();
  at::Tensor y = at::empty_like(gate, at::MemoryFormat::Contiguous);
  const float *gp = gate.data_ptr<float>(), *up_p = up.data_ptr<float>();
  float* yp = y.data_ptr<float>();
  at::parallel_for(0, gate.numel(), kGrain, [&](int64_t b, int64_t e) { forward_loop(gp + b, up_p + b, yp + b, e - b); });
  return y;
}

std::pair<at::Tensor, at::Tensor> swiglu_backward_cpu(const at::Tensor& grad_in, const at::Tensor& gate_in, const at::Tensor& up_in) {
  TORCH_CHECK(swiglu_is_fused(gate_in, up_in) && same_layout(grad_in, gate_in), "swiglu_backward_cpu: CPU float32 tensors of one shape expected");
  const at::Tensor dy = grad_in.contiguous(), gate = gate_in.contiguous(), up = up_in.contiguous();
  at::Tensor d_gate = at::empty_like(gate, at::MemoryFormat::Contiguous), d_up = at::empty_like(up, at::MemoryFormat::Contiguous);
  const float *dyp = dy.data_ptr<float>(), *gp = gate.data_ptr<float>(), *up_p = up.data_ptr<float>();
  float *dgp = d_gate.data_ptr<float>(), *dup = d_up.data_ptr<float>();
  at::parallel_for(0, gate.numel(), kGrain,
                   [&](int64_t b, int64_t e) { backward_loop(dyp + b, gp + b, up_p + b, dgp + b, dup + b, e - b); });
  return {d_gate, d_up};
}

at::Tensor swiglu_values(const at::Tensor& gate, const at::Tensor& up) {
  if (swiglu_is_fused(gate, up)) return swiglu_forward_cpu(gate, up);
  if (on_cuda(gate, up)) return forward_cuda(gate, up);
  return at::silu(gate) * up;
}

std::pair<at::Tensor, at::Tensor> swiglu_grads(const at::Tensor& dy, const at::Tensor& gate, const at::Tensor& up, bool want_gate, bool want_up) {
  if (same_layout(dy, gate) && on_cuda(gate, up)) {
    auto [d_gate, d_up] = backward_cuda(dy, gate, up);
    return {want_gate ? d_gate : at::Tensor(), want_up ? d_up : at::Tensor()};
  }
  if (!swiglu_is_fused(gate, up) || !same_layout(dy, gate)) {
    // ATen's autograd of silu(gate) * up, term for term; silu(gate) is recomputed, not kept.
    return {want_gate ? at::silu_backward(dy * up, gate) : at::Tensor(), want_up ? dy * at::silu(gate) : at::Tensor()};
  }
  auto [d_gate, d_up] = swiglu_backward_cpu(dy, gate, up);
  return {want_gate ? d_gate : at::Tensor(), want_up ? d_up : at::Tensor()};
}

at::Tensor swiglu(const at::Tensor& gate, const at::Tensor& up) {
  if (!same_layout(gate, up) || !fused_kernels_enabled()) return at::silu(gate) * up;
  const bool track = at::GradMode::is_enabled() && (gate.requires_grad() || up.requires_grad());
  if (!track) return swiglu_values(gate, up);
  return SwiGLU::apply(gate, up);
}

}  // namespace runner::kernels
