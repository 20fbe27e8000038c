#include "runtime/kernels/swiglu_linear.h"

#include <optional>

#include <ATen/Functions.h>
#include <ATen/autocast_mode.h>
#include <c10/core/GradMode.h>
#include <torch/csrc/autograd/autograd.h>
#include <torch/csrc/autograd/custom_function.h>

#include "runtime/kernels/fused_switch.h"
#include "runtime/kernels/swiglu.h"

namespace runner::kernels {

namespace {

at::Tensor rows(const at::Tensor& t) { return t.reshape({-1, t.size(-1)}); }

std::vector<int64_t> out_sizes(const at::Tensor& gate, const at::Tensor& weight) {
  std::vector<int64_t> sizes = gate.sizes().vec();
  sizes.back() = weight.size(0);
  return sizes;
}

// The forward's GEMMs on s as (rows, intermediate), in at::linear's and models.lora's forms.
// Returns y and the branch's (rows, r) down-projection (undefined without a branch).
std::pair<at::Tensor, at::Tensor> project(const at::Tensor& s, const at::Tensor& weight, const at::Tensor& bias, const at::Tensor& a,
                                          const at::Tensor& b, double scaling) {
  at::Tensor y = bias.defined() ? at::addmm(bias, s, weight.t()) : at::mm(s, weight.t());
  if (!a.defined()) return {y, at::Tensor()};
  at::Tensor down = at::mm(s, a.t());
  return {at::addmm(y, down, b.t(), 1.0, scaling), down};
}

class SwigluLinearFn : public torch::autograd::Function<SwigluLinearFn> {
 public:
  // bias, a and b are optional: the Function's inputs must be defined tensors or absent.
  // Returns y as (rows, out): the caller views it, so the output is no custom-function view
  // (which in-place ops would refuse).
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& gate, const at::Tensor& up, const at::Tensor& weight,
                            const std::optional<at::Tensor>& bias_in, const std::optional<at::Tensor>& a_in, const std::optional<at::Tensor>& b_in,
                            double scaling) {
    const at::Tensor bias = bias_in.value_or(at::Tensor()), a = a_in.value_or(at::Tensor()), b = b_in.value_or(at::Tensor());
    auto [y, down] = project(rows(swiglu_values(gate, up)), weight, bias, a, b, scaling);  // s dies here
    ctx->save_for_backward({gate, up, weight, bias, a, b, down});
    ctx->saved_data["scaling"] = scaling;
    return y;
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx, torch::autograd::tensor_list grads) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &gate = saved[0], &up = saved[1], &weight = saved[2], &a = saved[4], &b = saved[5], &down = saved[6];
    const double scaling = ctx->saved_data["scaling"].toDouble();
    // needs_input_grad counts the present inputs only (the absent optional ones have no edge).
    std::vector<bool> want(6);
    for (size_t i = 0, edge = 0; i < want.size(); ++i)
      if (saved[i].defined()) want[i] = ctx->needs_input_grad(edge++);
    if (at::GradMode::is_enabled()) return differentiable_backward(saved, want, scaling, grads[0]);

    // PyTorch's own derivative formulas for mm / addmm (the transposed weights' forms), so the
    // gradients equal the op chain's.
    const at::Tensor dy = rows(grads[0]);
    torch::autograd::tensor_list out(7);
    if (want[3]) out[3] = dy.sum(0);
    at::Tensor d_down;
    if (a.defined()) d_down = at::mm(dy, b) * scaling;
    if (a.defined() && want[5]) out[5] = at::mm(dy.t(), down) * scaling;
    if (want[2] || (a.defined() && want[4])) {
      const at::Tensor s = rows(swiglu_values(gate, up));  // recomputed, and gone before d gate / d up
      if (want[2]) out[2] = at::mm(dy.t(), s);
      if (a.defined() && want[4]) out[4] = at::mm(d_down.t(), s);
    }
    if (want[0] || want[1]) {
      at::Tensor ds = at::mm(dy, weight);
      if (a.defined()) ds.addmm_(d_down, a);  // in place: one (rows × intermediate) tensor fewer at backward's peak
      auto [d_gate, d_up] = swiglu_grads(ds.view(gate.sizes()), gate, up, want[0], want[1]);
      out[0] = d_gate, out[1] = d_up;
    }
    return out;
  }

 private:
  // create_graph: differentiate the op chain on the saved inputs, so the gradients are
  // differentiable again.
  static torch::autograd::tensor_list differentiable_backward(const std::vector<at::Tensor>& saved, const std::vector<bool>& want, double scaling,
                                                              const at::Tensor& dy) {
    const LinearWeights w{saved[2], saved[3], saved[4], saved[5], scaling};
    const at::Tensor y = swiglu_linear_reference(saved[0], saved[1], w);
    std::vector<at::Tensor> wrt;
    for (size_t i = 0; i < want.size(); ++i)
      if (want[i]) wrt.push_back(saved[i]);
    const auto g = torch::autograd::grad({y}, wrt, {dy.view(y.sizes())}, /*retain_graph=*/true, /*create_graph=*/true, /*allow_unused=*/true);
    torch::autograd::tensor_list out(7);
    for (size_t i = 0, k = 0; i < want.size(); ++i)
      if (want[i]) out[i] = g[k++];
    return out;
  }
};

// The dtype autocast's cached_cast gives t: the autocast dtype for a floating tensor on the
// device other than float64, else t's own.
at::ScalarType cast_dtype(const at::Tensor& t, at::DeviceType device) {
  if (!at::autocast::is_autocast_enabled(device) || !t.is_floating_point() || t.scalar_type() == at::kDouble || t.device().type() != device)
    return t.scalar_type();
  return at::autocast::get_autocast_dtype(device);
}

// Autocast's casts of a linear layer's weights (cached_cast keeps one cast per weight that
// requires grad per autocast region, as at::linear under autocast does). gate and up keep
// their dtype: the chain computes SwiGLU in it, and a node of mixed dtypes is declined.
LinearWeights autocast_operands(const at::Tensor& gate, const LinearWeights& w) {
  const at::DeviceType device = gate.device().type();
  if (!at::autocast::is_autocast_enabled(device)) return w;
  const at::ScalarType dtype = at::autocast::get_autocast_dtype(device);
  auto cast = [&](const at::Tensor& t) { return t.defined() ? at::autocast::cached_cast(dtype, t, device) : t; };
  return {cast(w.weight), cast(w.bias), cast(w.lora_a), cast(w.lora_b), w.scaling};
}

// Decided from the dtypes the casts will give, without casting (a frozen weight's cast is not
// cached: casting here would cast it twice).
bool one_node(const at::Tensor& gate, const at::Tensor& up, const LinearWeights& w) {
  if (gate.sizes() != up.sizes() || gate.dim() < 1 || !w.weight.defined() || w.lora_a.defined() != w.lora_b.defined()) return false;
  if (gate.is_sparse() || gate.scalar_type() != up.scalar_type() || gate.device() != up.device()) return false;
  // With gradients on but neither gate nor up wanting one, SwiGLU keeps nothing and the chain
  // keeps only s; the node would keep gate and up.
  if (at::GradMode::is_enabled() && !gate.requires_grad() && !up.requires_grad()) return false;
  const at::DeviceType device = gate.device().type();
  for (const at::Tensor* t : {&w.weight, &w.bias, &w.lora_a, &w.lora_b})
    if (t->defined() && (cast_dtype(*t, device) != gate.scalar_type() || t->device() != gate.device() || t->is_sparse())) return false;
  return true;
}

}  // namespace

bool swiglu_linear_is_one_node(const at::Tensor& gate, const at::Tensor& up, const LinearWeights& w) {
  return fused_kernels_enabled() && one_node(gate, up, w);
}

at::Tensor swiglu_linear_reference(const at::Tensor& gate, const at::Tensor& up, const LinearWeights& w) {
  const at::Tensor s = swiglu(gate, up);
  const at::Tensor y = at::linear(s, w.weight, w.bias);
  if (!w.lora_a.defined()) return y;
  const at::Tensor down = at::linear(s, w.lora_a);
  return at::addmm(rows(y), rows(down), w.lora_b.t(), 1.0, w.scaling).view(y.sizes());
}

at::Tensor swiglu_linear(const at::Tensor& gate, const at::Tensor& up, const LinearWeights& weights) {
  if (!swiglu_linear_is_one_node(gate, up, weights)) return swiglu_linear_reference(gate, up, weights);
  const LinearWeights w = autocast_operands(gate, weights);
  bool track = false;
  if (at::GradMode::is_enabled())
    for (const at::Tensor* t : {&gate, &up, &w.weight, &w.bias, &w.lora_a, &w.lora_b}) track = track || (t->defined() && t->requires_grad());
  if (!track) return project(rows(swiglu_values(gate, up)), w.weight, w.bias, w.lora_a, w.lora_b, w.scaling).first.view(out_sizes(gate, w.weight));
  auto present = [](const at::Tensor& t) { return t.defined() ? std::optional<at::Tensor>(t) : std::nullopt; };
  return SwigluLinearFn::apply(gate, up, w.weight, present(w.bias), present(w.lora_a), present(w.lora_b), w.scaling).view(out_sizes(gate, w.weight));
}

}  // namespace runner::kernels
