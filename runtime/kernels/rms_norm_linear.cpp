#include "runtime/kernels/rms_norm_linear.h"

#include <ATen/Functions.h>
#include <ATen/autocast_mode.h>
#include <c10/core/GradMode.h>
#include <torch/csrc/autograd/autograd.h>
#include <torch/csrc/autograd/custom_function.h>

#include "runtime/kernels/fused_switch.h"
#include "runtime/kernels/rms_norm.h"

namespace runner::kernels {

namespace {

at::Tensor rows(const at::Tensor& t) { return t.reshape({-1, t.size(-1)}); }

class RMSNormLinearFn : public torch::autograd::Function<RMSNormLinearFn> {
 public:
  // `weight` is already in the compute dtype; n is cast to it here (as autocast's linear would).
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& n, const at::Tensor& x, const at::Tensor& norm_weight,
                            const at::Tensor& weight, double eps) {
    const at::Tensor nc = n.to(weight.scalar_type());
    ctx->save_for_backward({x, norm_weight, weight});
    ctx->saved_data["eps"] = eps;
    ctx->saved_data["n_dtype"] = static_cast<int64_t>(n.scalar_type());
    return at::mm(rows(nc), weight.t());  // (rows, out): the caller views it (no custom-function view)
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx, torch::autograd::tensor_list grads) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &x = saved[0], &norm_weight = saved[1], &weight = saved[2];
    const double eps = ctx->saved_data["eps"].toDouble();
    const auto n_dtype = static_cast<at::ScalarType>(ctx->saved_data["n_dtype"].toInt());
    const bool want_n = ctx->needs_input_grad(0), want_w = ctx->needs_input_grad(3);
    // Backward with create_graph runs these ops with grad mode on, so they are recorded: the
    // gradients are differentiable again, the recomputed n's graph reaching x and the norm's
    // weight (and nothing is asked of an input that needs no gradient).
    const at::Tensor dy = rows(grads[0]);
    at::Tensor dn, dw;
    if (want_n) dn = at::mm(dy, weight).view(x.sizes()).to(n_dtype);  // mm's formula, then the cast's
    if (want_w) dw = at::mm(dy.t(), rows(rms_norm(x, norm_weight, eps).to(weight.scalar_type())));  // n recomputed
    return {dn, at::Tensor(), at::Tensor(), dw, at::Tensor()};
  }
};

}  // namespace

bool rms_norm_linear_is_one_node(const at::Tensor& n, const at::Tensor& x, const at::Tensor& norm_weight, const at::Tensor& weight) {
  if (!fused_kernels_enabled() || n.sizes() != x.sizes() || n.dim() < 1 || weight.dim() != 2 || weight.size(1) != n.size(-1)) return false;
  if (n.device() != weight.device() || x.device() != n.device() || norm_weight.device() != n.device()) return false;
  const at::DeviceType device = n.device().type();
  const bool autocast = at::autocast::is_autocast_enabled(device) && at::isFloatingType(n.scalar_type());
  // Without autocast, at::linear wants one dtype; the forward's n must be the norm's output of
  // x, whose dtype rms_norm gives (the promoted dtype of weight and x).
  return (autocast || n.scalar_type() == weight.scalar_type()) &&
         n.scalar_type() == at::promote_types(x.scalar_type(), norm_weight.scalar_type());
}

at::Tensor rms_norm_linear(const at::Tensor& n, const at::Tensor& x, const at::Tensor& norm_weight, double eps, const at::Tensor& weight) {
  if (!rms_norm_linear_is_one_node(n, x, norm_weight, weight)) return at::linear(n, weight);
  const at::DeviceType device = n.device().type();
  const at::Tensor w =
      at::autocast::is_autocast_enabled(device) ? at::autocast::cached_cast(at::autocast::get_autocast_dtype(device), weight, device) : weight;
  const bool track = at::GradMode::is_enabled() && (n.requires_grad() || w.requires_grad());
  if (!track) return at::linear(n.to(w.scalar_type()), w);
  std::vector<int64_t> sizes = n.sizes().vec();
  sizes.back() = w.size(0);
  return RMSNormLinearFn::apply(n, x, norm_weight, w, eps).view(sizes);
}

}  // namespace runner::kernels
