#include "runtime/models/attention.h"

#include <limits>

#include <ATen/Dispatch.h>
#include <ATen/autocast_mode.h>
#include <c10/util/Exception.h>
#include <torch/version.h>

// SDPA's enable_gqa came with LibTorch 2.5.
#define RUNNER_SDPA_GQA (TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 5))

namespace runner::models {

at::Tensor split_heads(const at::Tensor& x, int64_t n_head) {
  const int64_t b = x.size(0), t = x.size(1), c = x.size(2);
  return x.view({b, t, n_head, c / n_head}).transpose(1, 2);  // (B, H, T, D)
}

at::Tensor merge_heads(const at::Tensor& x) {
  const int64_t b = x.size(0), h = x.size(1), t = x.size(2), d = x.size(3);
  return x.transpose(1, 2).reshape({b, t, h * d});  // (B, T, C)
}

at::ScalarType attention_compute_dtype(const at::Tensor& q) {
  const at::DeviceType device = q.device().type();
  return at::autocast::is_autocast_enabled(device) ? at::autocast::get_autocast_dtype(device) : q.scalar_type();
}

bool sdpa_takes_grouped_heads() { return RUNNER_SDPA_GQA; }

at::Tensor attend(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& hide, bool causal,
                  double dropout, bool training, bool grouped) {
  // Additive: 0 where a key is seen, the lowest finite value where hidden, in the dtype the
  // attention runs in (autocast's, when on): float's lowest cast to bf16/fp16 is -inf, which
  // would softmax a row that sees no key to NaN.
  const at::ScalarType dtype = attention_compute_dtype(q);
  at::Tensor mask, sees_none;
  if (hide.defined()) {
    // A query that sees no key (a left-padded position before the first token) gets zeros,
    // as PyTorch's SDPA (2.5+) gives such a row of a boolean mask and so transformers' models:
    // the row is computed over every key (a row of hidden scores alone has a logsumexp near the
    // dtype's lowest, for which cuDNN's backward, SDPA's first choice on sm90 in 2.11, returns
    // NaN gradients: pytorch#196678) and then zeroed, so nothing it would see leaks into it
    // (the last padded position predicts the first token, and that label is scored).
    sees_none = hide.all(-1, /*keepdim=*/true);  // (B, 1, T, 1)
    mask = at::zeros(hide.sizes(), q.options().dtype(dtype)).masked_fill_(hide.logical_and(sees_none.logical_not()), lowest_value(dtype));
  }
  const std::optional<at::Tensor> m = mask.defined() ? std::optional<at::Tensor>(mask) : std::nullopt;
#if RUNNER_SDPA_GQA
  at::Tensor y = at::scaled_dot_product_attention(q, k, v, m, training ? dropout : 0.0, causal, std::nullopt, grouped);  // (B, H, T, D)
#else
  TORCH_CHECK(!grouped, "attend: grouped key/value heads need LibTorch 2.5 or later");
  at::Tensor y = at::scaled_dot_product_attention(q, k, v, m, training ? dropout : 0.0, causal);
#endif
  return sees_none.defined() ? y.masked_fill(sees_none, 0.0) : y;
}

double lowest_value(at::ScalarType dtype) {
  double v = std::numeric_limits<float>::lowest();
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, dtype, "lowest_value",
                                  [&] { v = static_cast<double>(std::numeric_limits<scalar_t>::lowest()); });
  return v;
}

}  // namespace runner::models
