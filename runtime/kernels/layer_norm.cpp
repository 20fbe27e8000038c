#include "runtime/kernels/layer_norm.h"

#include <ATen/Functions.h>
#include <ATen/TensorOperators.h>
#include <c10/util/Exception.h>
#include <torch/csrc/autograd/autograd.h>
#include <torch/csrc/autograd/custom_function.h>

#include <optional>

#include "runtime/kernels/cuda_kernels.h"
#include "runtime/kernels/fused_switch.h"

namespace runner::kernels {

namespace {

at::Tensor upcast(const at::Tensor& t) { return t.defined() ? t.to(at::kFloat) : t; }

// The kernels' dtype for weight and bias (one dtype, either may be absent).
cuda::DType param_dtype(const at::Tensor& w, const at::Tensor& b) {
  return *cuda::dtype(w.defined() ? w.scalar_type() : b.defined() ? b.scalar_type() : at::kFloat);
}

struct Normed {
  at::Tensor y, mean, rstd;  // (..., H) in `out`; (rows) fp32 each
};

Normed run_forward(const at::Tensor& x_in, const at::Tensor& w_in, const at::Tensor& b_in, double eps, at::ScalarType out) {
  const at::Tensor x = x_in.contiguous();
  const at::Tensor w = w_in.defined() ? w_in.contiguous() : w_in, b = b_in.defined() ? b_in.contiguous() : b_in;
  const int64_t cols = x.size(-1), rows = cols ? x.numel() / cols : 0;
  const at::TensorOptions f32 = x.options().dtype(at::kFloat);
  Normed n{at::empty(x.sizes(), x.options().dtype(out)), at::empty({rows}, f32), at::empty({rows}, f32)};
  const cuda::Launch on(x);
  cuda::layer_norm_forward(x.data_ptr(), *cuda::dtype(x.scalar_type()), w.defined() ? w.data_ptr() : nullptr, b.defined() ? b.data_ptr() : nullptr,
                           param_dtype(w, b), n.y.data_ptr(), *cuda::dtype(out), n.mean.data_ptr<float>(), n.rstd.data_ptr<float>(), rows, cols,
                           static_cast<float>(eps), on.stream);
  return n;
}

class LayerNormToFn : public torch::autograd::Function<LayerNormToFn> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& x_in, const std::optional<at::Tensor>& w_in,
                            const std::optional<at::Tensor>& b_in, double eps, int64_t out_dtype) {
    const at::Tensor w = w_in.value_or(at::Tensor()), b = b_in.value_or(at::Tensor());
    Normed n = run_forward(x_in, w, b, eps, static_cast<at::ScalarType>(out_dtype));
    // The inputs as given (double backward differentiates the reference in them).
    ctx->save_for_backward({x_in, w, b, n.mean, n.rstd});
    ctx->saved_data["eps"] = eps;
    ctx->saved_data["out"] = out_dtype;
    // From the inputs, not needs_input_grad: that counts only the inputs given (an absent weight
    // or bias shifts the positions).
    ctx->saved_data["want_x"] = x_in.requires_grad();
    ctx->saved_data["want_w"] = w.defined() && w.requires_grad();
    ctx->saved_data["want_b"] = b.defined() && b.requires_grad();
    return n.y;
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx, torch::autograd::tensor_list grads) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &x = saved[0], &w = saved[1], &b = saved[2], &mean = saved[3], &rstd = saved[4];
    const bool want_x = ctx->saved_data["want_x"].toBool(), want_w = ctx->saved_data["want_w"].toBool(),
               want_b = ctx->saved_data["want_b"].toBool();
    const auto out = static_cast<at::ScalarType>(ctx->saved_data["out"].toInt());
    if (at::GradMode::is_enabled()) {
      // create_graph: differentiate the reference, so the gradients are differentiable again.
      std::vector<at::Tensor> wrt;
      if (want_x) wrt.push_back(x);
      if (want_w) wrt.push_back(w);
      if (want_b) wrt.push_back(b);
      const at::Tensor y = layer_norm_to_reference(x, w, b, ctx->saved_data["eps"].toDouble(), out);
      const auto g = torch::autograd::grad({y}, wrt, {grads[0]}, /*retain_graph=*/true, /*create_graph=*/true);
      size_t i = 0;
      at::Tensor dx = want_x ? g[i++] : at::Tensor(), dw = want_w ? g[i++] : at::Tensor(), db = want_b ? g[i++] : at::Tensor();
      return {dx, dw, db, at::Tensor(), at::Tensor()};
    }
    const at::Tensor dy = grads[0].to(out).contiguous();
    const at::Tensor xc = x.contiguous(), wc = w.defined() ? w.contiguous() : w;
    const int64_t cols = x.size(-1), rows = cols ? x.numel() / cols : 0;
    at::Tensor dx = at::empty_like(x, at::MemoryFormat::Contiguous);
    at::Tensor dw = want_w ? (rows ? at::empty_like(w, at::MemoryFormat::Contiguous) : at::zeros_like(w)) : at::Tensor();
    at::Tensor db = want_b ? (rows ? at::empty_like(b, at::MemoryFormat::Contiguous) : at::zeros_like(b)) : at::Tensor();
    at::Tensor partial = want_w || want_b ? at::empty({2 * cuda::layer_norm_backward_blocks(rows), cols}, x.options().dtype(at::kFloat))
                                          : at::Tensor();
    {
      const cuda::Launch on(x);
      cuda::layer_norm_backward(dy.data_ptr(), *cuda::dtype(out), xc.data_ptr(), *cuda::dtype(x.scalar_type()), wc.defined() ? wc.data_ptr() : nullptr,
                                param_dtype(w, b), mean.data_ptr<float>(), rstd.data_ptr<float>(), dx.data_ptr(), want_w ? dw.data_ptr() : nullptr,
                                want_b ? db.data_ptr() : nullptr, partial.defined() ? partial.data_ptr<float>() : nullptr, rows, cols, on.stream);
    }
    return {want_x ? dx : at::Tensor(), dw, db, at::Tensor(), at::Tensor()};
  }
};

bool beside(const at::Tensor& t, const at::Tensor& x) {
  return !t.defined() || (t.device() == x.device() && t.dim() == 1 && t.size(0) == x.size(-1) && !t.is_sparse() && cuda::dtype(t.scalar_type()));
}

}  // namespace

bool layer_norm_to_takes_kernel(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias, at::ScalarType out) {
  return fused_kernels_enabled() && cuda::built() && x.is_cuda() && x.dim() >= 1 && !x.is_sparse() && cuda::dtype(x.scalar_type()) &&
         (out == at::kBFloat16 || out == at::kHalf) && beside(weight, x) && beside(bias, x) &&
         (!weight.defined() || !bias.defined() || weight.scalar_type() == bias.scalar_type());
}

at::Tensor layer_norm_to_reference(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias, double eps, at::ScalarType out) {
  return at::layer_norm(x.to(at::kFloat), {x.size(-1)}, upcast(weight), upcast(bias), eps).to(out);
}

at::Tensor layer_norm_to(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias, double eps, at::ScalarType out) {
  TORCH_CHECK(layer_norm_to_takes_kernel(x, weight, bias, out), "layer_norm_to: a GPU tensor with float32/bf16/fp16 weight and bias of "
              "its last dimension and a bf16/fp16 output expected (check layer_norm_to_takes_kernel first)");
  const bool track = at::GradMode::is_enabled() && (x.requires_grad() || (weight.defined() && weight.requires_grad()) ||
                                                   (bias.defined() && bias.requires_grad()));
  if (!track) return run_forward(x, weight, bias, eps, out).y;
  return LayerNormToFn::apply(x, weight.defined() ? std::optional<at::Tensor>(weight) : std::nullopt,
                              bias.defined() ? std::optional<at::Tensor>(bias) : std::nullopt, eps, static_cast<int64_t>(out));
}

}  // namespace runner::kernels
