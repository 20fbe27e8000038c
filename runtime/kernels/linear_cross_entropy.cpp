#include "runtime/kernels/linear_cross_entropy.h"

#include <ATen/Functions.h>
#include <ATen/autocast_mode.h>
#include <ATen/core/Reduction.h>
#include <c10/util/Exception.h>
#include <torch/csrc/autograd/custom_function.h>

#include <algorithm>
#include <optional>

#include "runtime/kernels/cuda_kernels.h"
#include "runtime/kernels/fused_switch.h"

namespace runner::kernels {

namespace {

using Options = LinearCrossEntropyOptions;

// The dtype at::linear would compute in: autocast's on this device (it casts float inputs
// down, never double), else the inputs' common one.
at::ScalarType compute_dtype(const at::Tensor& hidden, const at::Tensor& weight) {
  const at::DeviceType device = hidden.device().type();
  const at::ScalarType common = at::promote_types(hidden.scalar_type(), weight.scalar_type());
  if (common != at::kDouble && at::autocast::is_autocast_enabled(device)) return at::autocast::get_autocast_dtype(device);
  return common;
}

// The sum of the row losses and, when asked for, the gradients of that sum (not yet divided
// by the item count).
struct Pass {
  at::Tensor loss_sum;                              // () fp32
  at::Tensor grad_hidden, grad_weight, grad_bias;  // (N, H) compute dtype, (V, H) fp32, (V) fp32; undefined when not asked
};

// hidden (N, H), weight (V, H), bias (V) or undefined, labels (N) int64.
Pass run_chunks(const at::Tensor& hidden, const at::Tensor& weight, const at::Tensor& bias, const at::Tensor& labels, const Options& o,
                bool want_hidden, bool want_weight, bool want_bias) {
  const int64_t n = hidden.size(0), v = weight.size(0);
  const at::ScalarType cd = compute_dtype(hidden, weight);
  const at::Tensor x = hidden.to(cd).contiguous();  // (N, H)
  const at::Tensor w = weight.to(cd);               // (V, H)
  const at::Tensor b = bias.defined() ? bias.to(cd) : bias;
  const at::TensorOptions f32 = hidden.options().dtype(at::kFloat);
  Pass p;
  p.loss_sum = at::zeros({}, f32);
  const bool grads = want_hidden || want_weight || want_bias;
  if (want_hidden) p.grad_hidden = at::empty({n, x.size(1)}, x.options());
  // The weight and bias gradients start as the first chunk's (no zero fill to add into: with
  // one chunk, the common case on a GPU, the (V, H) sum is written once and never re-read).
  auto accumulate = [](at::Tensor& sum, const at::Tensor& term) {
    if (sum.defined()) sum.add_(term);
    else sum = term.scalar_type() == at::kFloat ? term : term.to(at::kFloat);
  };
  // On a GPU, runner's kernel (cuda/cross_entropy.cu) takes a chunk's loss and gradient in two
  // passes over its logits, in place; elsewhere (and with a soft cap) ATen's ops do, holding
  // an fp32 copy and temporaries of each chunk: smaller chunks there.
  const bool row_kernel = linear_cross_entropy_uses_row_kernel(hidden, weight, o);
  const int64_t rows = o.chunk_rows > 0 ? o.chunk_rows
                       : row_kernel        ? linear_cross_entropy_chunk_rows(n, x.size(1), v, kGpuChunkElements)
                       : hidden.is_cuda()  ? linear_cross_entropy_chunk_rows(n, x.size(1), v, kGpuAtenChunkElements)
                                           : linear_cross_entropy_chunk_rows(n, x.size(1), v);
  // Logit rows `stride` apart (linear_cross_entropy_row_stride). With a bias on a GPU they stay
  // contiguous: LibTorch adds the bias in cuBLASLt's epilogue only into a contiguous output
  // (else it writes the bias out first and re-reads it); no built-in model has an LM-head bias.
  const int64_t stride = hidden.is_cuda() && b.defined() ? v : linear_cross_entropy_row_stride(v);
  // A chunk's (m, V) tensor in the compute dtype, its rows `stride` apart.
  auto chunk_tensor = [&](int64_t m) { return at::empty({m, stride}, x.options()).narrow(1, 0, v); };
  // g (m, V) in the compute dtype: the gradient of the chunk's summed loss in its logits.
  auto take_gradients = [&](const at::Tensor& g, const at::Tensor& xs, int64_t start, int64_t m) {
    if (want_hidden) {
      at::Tensor rows_out = p.grad_hidden.narrow(0, start, m);  // contiguous rows: written in place
      at::mm_out(rows_out, g, w);
    }
    if (!want_weight) return;
    if (cd == at::kFloat && p.grad_weight.defined()) p.grad_weight.addmm_(g.t(), xs);
    else if ((cd == at::kBFloat16 || cd == at::kHalf) && hidden.is_cuda()) {
      // cuBLAS writes the fp32 sum from its fp32 accumulators (mm's out_dtype, CUDA only): g
      // is not yet divided by the count, so a chunk's sum rounded to fp16 could pass 65504 (a
      // label repeated k times: about k·|x|) and be inf whatever the loss scale; nor is a
      // (V, H) low-precision term written, read back and cast.
      if (p.grad_weight.defined()) at::addmm_out(p.grad_weight, p.grad_weight, g.t(), xs, at::kFloat);
      else p.grad_weight = at::mm(g.t(), xs, at::kFloat);
    } else accumulate(p.grad_weight, at::mm(g.t(), xs));  // summed in fp32 over the chunks
  };
  for (int64_t start = 0; start < n; start += rows) {
    const int64_t m = std::min(rows, n - start);
    const at::Tensor xs = x.narrow(0, start, m);  // (m, H)
    const at::Tensor target = labels.narrow(0, start, m);
    at::Tensor logits = chunk_tensor(m);
    if (b.defined()) at::addmm_out(logits, b, xs, w.t());
    else at::mm_out(logits, xs, w.t());
    if (row_kernel) {
      // The chunk's only (m, V) tensor: the logits, which become the gradient in place.
      TORCH_CHECK(logits.stride(1) == 1 && logits.stride(0) == stride, "linear_cross_entropy: the chunk's logits are not laid out as allocated");
      const at::Tensor row_labels = target.contiguous();
      at::Tensor row_loss = at::empty({m}, f32);
      {
        const cuda::Launch on(logits);
        cuda::cross_entropy_rows(logits.data_ptr(), *cuda::dtype(cd), m, v, stride, row_labels.data_ptr<int64_t>(), o.ignore_index,
                                 row_loss.data_ptr<float>(), grads, on.stream);
      }
      p.loss_sum.add_(row_loss.sum());
      if (!grads) continue;
      if (want_bias) accumulate(p.grad_bias, at::sum(logits, {0}, false, at::kFloat));
      take_gradients(logits, xs, start, m);
      continue;
    }
    // The only (m, V) tensors here: the logits, their fp32 copy (which becomes the gradient in
    // place) and its compute-dtype copy (rows `stride` apart again: `to` packs them).
    at::Tensor z = logits.to(at::kFloat);
    logits = at::Tensor();
    at::Tensor capped;  // tanh(logits / cap), for the cap's derivative
    if (o.softcap > 0) {
      capped = z.div_(o.softcap).tanh_();
      z = capped * o.softcap;
    }
    const at::Tensor valid = target.ne(o.ignore_index);                        // (m)
    const at::Tensor safe = at::where(valid, target, at::zeros_like(target)).unsqueeze(1);  // (m, 1): gather needs an index in range
    const at::Tensor lse = at::logsumexp(z, 1);                                 // (m)
    const at::Tensor picked = z.gather(1, safe).squeeze(1);                     // (m)
    // where, not ×: an ignored row's loss may be inf or NaN and must not reach the sum.
    p.loss_sum.add_(at::where(valid, lse - picked, at::zeros_like(lse)).sum());
    if (!grads) continue;
    // d(row loss)/d(logits) = softmax − one-hot(target); ignored rows contribute nothing.
    z.sub_(lse.unsqueeze(1)).exp_();
    z.scatter_add_(1, safe, at::full({m, 1}, -1.0, f32));
    z.masked_fill_(valid.logical_not().unsqueeze(1), 0.0);
    if (o.softcap > 0) z.mul_(1 - capped * capped);  // d(cap·tanh(u/cap))/du
    if (want_bias) accumulate(p.grad_bias, z.sum(0));
    take_gradients(cd == at::kFloat ? z : chunk_tensor(m).copy_(z), xs, start, m);
  }
  if (want_weight && !p.grad_weight.defined()) p.grad_weight = at::zeros({v, x.size(1)}, f32);  // no rows
  if (want_bias && !p.grad_bias.defined()) p.grad_bias = at::zeros({v}, f32);
  return p;
}

// sum / count: the mean's count (a device tensor: reading it would wait for the GPU), or
// num_items, or 1.
at::Tensor divisor(const at::Tensor& labels, const Options& o, const at::TensorOptions& f32) {
  if (o.num_items > 0) return at::full({}, o.num_items, f32);
  if (o.reduction == Options::Reduction::kSum) return at::ones({}, f32);
  return labels.ne(o.ignore_index).sum().to(at::kFloat);
}

class LinearCrossEntropy : public torch::autograd::Function<LinearCrossEntropy> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& hidden, const at::Tensor& weight,
                            const std::optional<at::Tensor>& maybe_bias, const at::Tensor& labels, const Options& o) {
    const at::Tensor bias = maybe_bias.value_or(at::Tensor());
    const bool want_bias = bias.defined() && bias.requires_grad();
    Pass p = run_chunks(hidden, weight, bias, labels, o, hidden.requires_grad(), weight.requires_grad(), want_bias);
    const at::Tensor count = divisor(labels, o, p.loss_sum.options());
    // A mean over no items is 0/0 = NaN, as in ATen; its gradient is 0 there, as in ATen.
    const at::Tensor inverse = at::where(count.ne(0), count.reciprocal(), at::zeros_like(count));
    ctx->save_for_backward({p.grad_hidden, p.grad_weight, p.grad_bias, inverse});
    ctx->saved_data["hidden_dtype"] = static_cast<int64_t>(hidden.scalar_type());
    ctx->saved_data["weight_dtype"] = static_cast<int64_t>(weight.scalar_type());
    ctx->saved_data["bias_dtype"] = static_cast<int64_t>(bias.defined() ? bias.scalar_type() : weight.scalar_type());
    return p.loss_sum / count;
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx, torch::autograd::tensor_list grads) {
    // The gradients were computed in forward, for this loss only: they are not functions of
    // the inputs autograd could differentiate again.
    TORCH_CHECK(!at::GradMode::is_enabled(), "linear_cross_entropy: double backward (create_graph) is not supported");
    const auto saved = ctx->get_saved_variables();
    const at::Tensor scale = grads[0] * saved[3];  // () fp32: d(output) × 1/count
    // Scaled in fp32 and rounded once, as ATen's fp32 loss scales them (1/count rounded to
    // bf16 first would bias every gradient by the same factor, up to 2^-9). A reduced-precision
    // g (d hidden under autocast) cannot simply be multiplied by the 0-dim fp32 factor: ATen's
    // CUDA kernels read a 0-dim device tensor in the common dtype, g's (only a CPU scalar keeps
    // its precision), and reading it on the host would wait for the GPU. So it is multiplied
    // in fp32 a chunk at a time, which holds no fp32 copy of all of g.
    auto scaled = [&](const at::Tensor& g, const char* dtype) {
      if (!g.defined()) return at::Tensor();
      const auto out_dtype = static_cast<at::ScalarType>(ctx->saved_data[dtype].toInt());
      if (g.scalar_type() == at::kFloat || g.scalar_type() == at::kDouble) return (g * scale).to(out_dtype);
      const at::Tensor in = g.contiguous().view(-1);
      at::Tensor out = at::empty(g.sizes(), g.options().dtype(out_dtype));
      at::Tensor flat = out.view(-1);
      constexpr int64_t kChunk = int64_t{1} << 22;  // 16 MB of fp32
      for (int64_t b = 0; b < in.numel(); b += kChunk) {
        const int64_t n = std::min(kChunk, in.numel() - b);
        flat.narrow(0, b, n).copy_(in.narrow(0, b, n).to(at::kFloat).mul_(scale));
      }
      return out;
    };
    return {scaled(saved[0], "hidden_dtype"), scaled(saved[1], "weight_dtype"), scaled(saved[2], "bias_dtype"), at::Tensor(), at::Tensor()};
  }
};

void check_inputs(const at::Tensor& hidden, const at::Tensor& weight, const at::Tensor& bias, const at::Tensor& labels) {
  TORCH_CHECK(hidden.dim() >= 1 && weight.dim() == 2 && hidden.size(-1) == weight.size(1),
              "linear_cross_entropy: hidden (*, H) and weight (V, H) expected, got ", hidden.sizes(), " and ", weight.sizes());
  TORCH_CHECK(hidden.is_floating_point() && weight.is_floating_point(), "linear_cross_entropy: hidden and weight must be floating point");
  TORCH_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == weight.size(0)), "linear_cross_entropy: bias (V) expected");
  TORCH_CHECK(labels.device() == hidden.device(), "linear_cross_entropy: labels on ", labels.device(), ", hidden on ", hidden.device());
  TORCH_CHECK(!at::isFloatingType(labels.scalar_type()) && labels.numel() * hidden.size(-1) == hidden.numel(),
              "linear_cross_entropy: one integer label per row of hidden expected, got labels ", labels.sizes(), " for hidden ",
              hidden.sizes());
}

}  // namespace

int64_t linear_cross_entropy_chunk_rows(int64_t n, int64_t h, int64_t v, int64_t min_elements) {
  int64_t rows = std::max((n * h + v - 1) / v, min_elements / std::max<int64_t>(v, 1));
  rows = (rows + 7) / 8 * 8;
  return std::max<int64_t>(1, std::min(rows, n));
}

int64_t linear_cross_entropy_row_stride(int64_t v) { return (v + 63) / 64 * 64; }

bool linear_cross_entropy_uses_row_kernel(const at::Tensor& hidden, const at::Tensor& weight, const LinearCrossEntropyOptions& o) {
  return o.softcap <= 0 && hidden.is_cuda() && cuda::built() && fused_kernels_enabled() && cuda::dtype(compute_dtype(hidden, weight)).has_value();
}

at::Tensor linear_cross_entropy(const at::Tensor& hidden, const at::Tensor& weight, const at::Tensor& bias, const at::Tensor& labels,
                                const LinearCrossEntropyOptions& o) {
  check_inputs(hidden, weight, bias, labels);
  const at::Tensor x = hidden.reshape({-1, hidden.size(-1)});    // (N, H)
  const at::Tensor y = labels.reshape({-1}).to(at::kLong);        // (N)
  const bool differentiable =
      at::GradMode::is_enabled() && (hidden.requires_grad() || weight.requires_grad() || (bias.defined() && bias.requires_grad()));
  // An absent bias goes in as nullopt: autograd then counts it as no input at all.
  if (differentiable) return LinearCrossEntropy::apply(x, weight, bias.defined() ? std::optional<at::Tensor>(bias) : std::nullopt, y, o);
  const Pass p = run_chunks(x, weight, bias, y, o, false, false, false);
  return p.loss_sum / divisor(y, o, p.loss_sum.options());
}

at::Tensor linear_cross_entropy_reference(const at::Tensor& hidden, const at::Tensor& weight, const at::Tensor& bias,
                                          const at::Tensor& labels, const LinearCrossEntropyOptions& o) {
  check_inputs(hidden, weight, bias, labels);
  at::Tensor logits = at::linear(hidden, weight, bias).to(at::kFloat);  // (*, V)
  logits = logits.reshape({-1, logits.size(-1)});
  if (o.softcap > 0) logits = at::tanh(logits / o.softcap) * o.softcap;
  const at::Tensor y = labels.reshape({-1}).to(at::kLong);
  if (o.num_items > 0)
    return at::cross_entropy_loss(logits, y, /*weight=*/{}, at::Reduction::Sum, o.ignore_index) / o.num_items;
  const auto reduction = o.reduction == Options::Reduction::kSum ? at::Reduction::Sum : at::Reduction::Mean;
  return at::cross_entropy_loss(logits, y, /*weight=*/{}, reduction, o.ignore_index);
}

}  // namespace runner::kernels
