#include "runtime/kernels/rms_norm.h"

#include <ATen/Functions.h>
#include <ATen/Parallel.h>
#include <ATen/TensorOperators.h>
#include <c10/util/Exception.h>
#include <torch/csrc/autograd/autograd.h>
#include <torch/csrc/autograd/custom_function.h>

#include <algorithm>
#include <cmath>

#include "runtime/kernels/cuda_kernels.h"
#include "runtime/kernels/fused_switch.h"
#include "runtime/kernels/vector_math.h"

namespace runner::kernels {

namespace {

constexpr int kLanes = 16;  // independent partial sums, so the reductions vectorise

// Σ a·b over n floats.
RUNNER_VECTORIZED_CLONES
float dot(const float* a, const float* b, int64_t n) {
  float acc[kLanes] = {};
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes)
    for (int l = 0; l < kLanes; ++l) acc[l] += a[j + l] * b[j + l];
  for (; j < n; ++j) acc[j % kLanes] += a[j] * b[j];
  for (int w = kLanes / 2; w > 0; w /= 2)
    for (int l = 0; l < w; ++l) acc[l] += acc[l + w];
  return acc[0];
}

RUNNER_VECTORIZED_CLONES
void scale_row(const float* x, const float* w, float r, float* y, int64_t n) {
  for (int64_t j = 0; j < n; ++j) y[j] = w[j] * (x[j] * r);  // HF's order: (x·r), then the weight
}

// d x = r·dn − x·r³·mean(dn·x) with dn = dy·w; d weight += dy·(x·r).
RUNNER_VECTORIZED_CLONES
void backward_row(const float* dy, const float* x, const float* w, float r, float c, float* dx, float* dw, int64_t n) {
  for (int64_t j = 0; j < n; ++j) {
    dx[j] = (dy[j] * w[j]) * r - x[j] * c;
    dw[j] += dy[j] * (x[j] * r);
  }
}

RUNNER_VECTORIZED_CLONES
void add_row(const float* a, float* acc, int64_t n) {
  for (int64_t j = 0; j < n; ++j) acc[j] += a[j];
}

// Row blocks for backward's weight gradient: at most kMaxBlocks partial sums (bounded
// memory), fixed by the shape alone so the sum does not depend on the thread count.
constexpr int64_t kMaxBlocks = 64, kGrain = 16384;

bool plain(const at::Tensor& t) { return !t.is_sparse(); }

// runner's CUDA kernels: x and weight float32/bf16/fp16 on one GPU.
bool on_cuda(const at::Tensor& x, const at::Tensor& w) {
  return cuda::built() && x.is_cuda() && w.device() == x.device() && cuda::dtype(x.scalar_type()) && cuda::dtype(w.scalar_type()) &&
         plain(x) && plain(w);
}

std::pair<at::Tensor, at::Tensor> forward_cuda(const at::Tensor& x_in, const at::Tensor& w_in, double eps) {
  const at::Tensor x = x_in.contiguous(), w = w_in.contiguous();
  const at::ScalarType out = at::promote_types(x.scalar_type(), w.scalar_type());
  at::Tensor y = at::empty(x.sizes(), x.options().dtype(out));
  at::Tensor rstd = at::empty(x.sizes().slice(0, x.dim() - 1), x.options().dtype(at::kFloat));
  const int64_t n = x.size(-1), rows = n ? x.numel() / n : 0;
  const cuda::Launch on(x);
  cuda::rms_norm_forward(x.data_ptr(), *cuda::dtype(x.scalar_type()), w.data_ptr(), *cuda::dtype(w.scalar_type()), y.data_ptr(), *cuda::dtype(out),
                         rstd.data_ptr<float>(), rows, n, static_cast<float>(eps), on.stream);
  return {y, rstd};
}

std::pair<at::Tensor, at::Tensor> backward_cuda(const at::Tensor& dy_in, const at::Tensor& x_in, const at::Tensor& w_in, const at::Tensor& rstd_in,
                                                 bool want_w) {
  const at::Tensor dy = dy_in.contiguous(), x = x_in.contiguous(), w = w_in.contiguous(), rstd = rstd_in.contiguous();
  const int64_t n = x.size(-1), rows = n ? x.numel() / n : 0;
  at::Tensor dx = at::empty_like(x, at::MemoryFormat::Contiguous);
  at::Tensor dw = want_w ? (rows ? at::empty_like(w, at::MemoryFormat::Contiguous) : at::zeros_like(w)) : at::Tensor();
  at::Tensor partial = want_w ? at::empty({cuda::rms_norm_backward_blocks(rows), n}, x.options().dtype(at::kFloat)) : at::Tensor();
  const cuda::Launch on(x);
  cuda::rms_norm_backward(dy.data_ptr(), *cuda::dtype(dy.scalar_type()), x.data_ptr(), *cuda::dtype(x.scalar_type()), w.data_ptr(),
                          *cuda::dtype(w.scalar_type()), rstd.data_ptr<float>(), dx.data_ptr(), want_w ? dw.data_ptr() : nullptr,
                          want_w ? partial.data_ptr<float>() : nullptr, rows, n, on.stream);
  return {dx, dw};
}

// HF's chain as ATen ops, with r (rows) for backward.
std::pair<at::Tensor, at::Tensor> reference_with_rstd(const at::Tensor& x, const at::Tensor& weight, double eps) {
  const at::Tensor h = x.to(at::kFloat);
  const at::Tensor rstd = at::rsqrt(h.pow(2).mean(-1, /*keepdim=*/true) + eps);
  return {weight * (h * rstd).to(x.scalar_type()), rstd.squeeze(-1)};
}

class RMSNormFn : public torch::autograd::Function<RMSNormFn> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& x, const at::Tensor& weight, double eps) {
    at::Tensor y, rstd;
    if (rms_norm_is_fused(x, weight)) {
      std::tie(y, rstd) = rms_norm_forward_cpu(x, weight, eps);
    } else if (on_cuda(x, weight)) {
      std::tie(y, rstd) = forward_cuda(x, weight, eps);
    } else {
      std::tie(y, rstd) = reference_with_rstd(x, weight, eps);
    }
    ctx->save_for_backward({x, weight, rstd});
    ctx->saved_data["eps"] = eps;
    return y;
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx, torch::autograd::tensor_list grads) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &x = saved[0], &weight = saved[1], &rstd = saved[2], &dy = grads[0];
    const bool want_x = ctx->needs_input_grad(0), want_w = ctx->needs_input_grad(1);
    if (at::GradMode::is_enabled()) {
      // create_graph: differentiate HF's chain, so the gradients are differentiable again.
      std::vector<at::Tensor> wrt;
      if (want_x) wrt.push_back(x);
      if (want_w) wrt.push_back(weight);
      const at::Tensor y = rms_norm_reference(x, weight, ctx->saved_data["eps"].toDouble());
      const auto g = torch::autograd::grad({y}, wrt, {dy}, /*retain_graph=*/true, /*create_graph=*/true);
      return {want_x ? g[0] : at::Tensor(), want_w ? g.back() : at::Tensor(), at::Tensor()};
    }
    if (rms_norm_is_fused(x, weight) && dy.scalar_type() == at::kFloat) {
      auto [dx, dw] = rms_norm_backward_cpu(dy, x, weight, rstd);
      return {want_x ? dx : at::Tensor(), want_w ? dw : at::Tensor(), at::Tensor()};
    }
    if (on_cuda(x, weight) && dy.scalar_type() == at::promote_types(x.scalar_type(), weight.scalar_type()) && dy.sizes() == x.sizes()) {
      auto [dx, dw] = backward_cuda(dy, x, weight, rstd, want_w);
      return {want_x ? dx : at::Tensor(), want_w ? dw : at::Tensor(), at::Tensor()};
    }
    // The same formulas as ATen ops (any device, any dtype), the casts where autograd puts them.
    const at::Tensor h = x.to(at::kFloat), r = rstd.unsqueeze(-1);
    at::Tensor dx, dw;
    if (want_w) dw = (dy * (h * r).to(x.scalar_type())).reshape({-1, x.size(-1)}).sum(0).to(weight.scalar_type());
    if (want_x) {
      const at::Tensor dn = (dy * weight).to(x.scalar_type()).to(at::kFloat);
      dx = (dn * r - h * (r.pow(3) * (dn * h).mean(-1, /*keepdim=*/true))).to(x.scalar_type());
    }
    return {dx, dw, at::Tensor()};
  }
};

}  // namespace

bool rms_norm_is_fused(const at::Tensor& x, const at::Tensor& weight) {
  return x.device().is_cpu() && weight.device().is_cpu() && x.scalar_type() == at::kFloat && weight.scalar_type() == at::kFloat &&
         plain(x) && plain(weight);
}

at::Tensor rms_norm_reference(const at::Tensor& x, const at::Tensor& weight, double eps) { return reference_with_rstd(x, weight, eps).first; }

std::pair<at::Tensor, at::Tensor> rms_norm_forward_cpu(const at::Tensor& x_in, const at::Tensor& w_in, double eps) {
  TORCH_CHECK(rms_norm_is_fused(x_in, w_in), "rms_norm_forward_cpu: CPU float32 tensors expected");
  TORCH_CHECK(x_in.dim() >= 1 && w_in.dim() == 1 && w_in.size(0) == x_in.size(-1), "rms_norm_forward_cpu: weight must be (x.size(-1))");
  const at::Tensor x = x_in.contiguous(), w = w_in.contiguous();
  const int64_t n = x.size(-1), rows = n ? x.numel() / n : 0;
  at::Tensor y = at::empty_like(x, at::MemoryFormat::Contiguous);
  at::Tensor rstd = at::empty(x.sizes().slice(0, x.dim() - 1), x.options());
  const float *xp = x.data_ptr<float>(), *wp = w.data_ptr<float>();
  float *yp = y.data_ptr<float>(), *rp = rstd.data_ptr<float>();
  const float e = static_cast<float>(eps);  // HF adds eps to a float tensor
  at::parallel_for(0, rows, std::max<int64_t>(1, kGrain / std::max<int64_t>(n, 1)), [&](int64_t b, int64_t end) {
    for (int64_t i = b; i < end; ++i) {
      const float* row = xp + i * n;
      const float r = 1.0f / std::sqrt(dot(row, row, n) / static_cast<float>(n) + e);
      rp[i] = r;
      scale_row(row, wp, r, yp + i * n, n);
    }
  });
  return {y, rstd};
}

std::pair<at::Tensor, at::Tensor> rms_norm_backward_cpu(const at::Tensor& grad, const at::Tensor& x_in, const at::Tensor& w_in,
                                                        const at::Tensor& rstd_in) {
  TORCH_CHECK(rms_norm_is_fused(x_in, w_in) && grad.scalar_type() == at::kFloat && grad.device().is_cpu() && grad.sizes() == x_in.sizes(),
              "rms_norm_backward_cpu: CPU float32 tensors of x's shape expected");
  const at::Tensor x = x_in.contiguous(), w = w_in.contiguous(), dy = grad.contiguous(), rstd = rstd_in.contiguous();
  const int64_t n = x.size(-1), rows = n ? x.numel() / n : 0;
  at::Tensor dx = at::empty_like(x, at::MemoryFormat::Contiguous);
  const int64_t per_block = std::max<int64_t>({1, (rows + kMaxBlocks - 1) / kMaxBlocks, kGrain / std::max<int64_t>(n, 1)});
  const int64_t blocks = (rows + per_block - 1) / per_block;
  at::Tensor partial = at::zeros({std::max<int64_t>(blocks, 1), n}, w.options());
  const float *xp = x.data_ptr<float>(), *wp = w.data_ptr<float>(), *dyp = dy.data_ptr<float>(), *rp = rstd.data_ptr<float>();
  float *dxp = dx.data_ptr<float>(), *pp = partial.data_ptr<float>();
  const float inv_n = 1.0f / static_cast<float>(n);
  at::parallel_for(0, blocks, 1, [&](int64_t b, int64_t end) {
    std::vector<float> dn(n);
    for (int64_t k = b; k < end; ++k) {
      for (int64_t i = k * per_block; i < std::min(rows, (k + 1) * per_block); ++i) {
        const float *row = xp + i * n, *g = dyp + i * n;
        for (int64_t j = 0; j < n; ++j) dn[j] = g[j] * wp[j];
        const float r = rp[i];
        const float c = r * r * r * (dot(dn.data(), row, n) * inv_n);
        backward_row(g, row, wp, r, c, dxp + i * n, pp + k * n, n);
      }
    }
  });
  at::Tensor dw = partial.select(0, 0).clone();
  float* dwp = dw.data_ptr<float>();
  for (int64_t k = 1; k < blocks; ++k) add_row(pp + k * n, dwp, n);  // in block order: the same sum on any thread count
  return {dx, dw};
}

at::Tensor rms_norm(const at::Tensor& x, const at::Tensor& weight, double eps) {
  TORCH_CHECK(weight.dim() == 1 && x.dim() >= 1 && weight.size(0) == x.size(-1), "rms_norm: weight (", weight.sizes(),
              ") does not match the last dimension of x (", x.sizes(), ")");
  if (!fused_kernels_enabled()) return rms_norm_reference(x, weight, eps);
  const bool track = at::GradMode::is_enabled() && (x.requires_grad() || weight.requires_grad());
  if (!track) {
    if (rms_norm_is_fused(x, weight)) return rms_norm_forward_cpu(x, weight, eps).first;
    if (on_cuda(x, weight)) return forward_cuda(x, weight, eps).first;
    return rms_norm_reference(x, weight, eps);
  }
  return RMSNormFn::apply(x, weight, eps);
}

}  // namespace runner::kernels
