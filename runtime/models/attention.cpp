#include "runtime/models/attention.h"

#include <cmath>
#include <limits>

#include <ATen/Dispatch.h>

namespace runner::models {

at::Tensor split_heads(const at::Tensor& x, int64_t n_head) {
  const int64_t b = x.size(0), t = x.size(1), c = x.size(2);
  return x.view({b, t, n_head, c / n_head}).transpose(1, 2);  // (B, H, T, D)
}

at::Tensor merge_heads(const at::Tensor& x) {
  const int64_t b = x.size(0), h = x.size(1), t = x.size(2), d = x.size(3);
  return x.transpose(1, 2).reshape({b, t, h * d});  // (B, T, C)
}

at::Tensor attend(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& hide, double fill,
                  double dropout, bool training) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(q.size(-1)));
  // matmul's backward needs only q and k, and mul's only the scalar, so the (B, H, T, T)
  // scores are scaled and masked in place rather than copied twice.
  at::Tensor scores = at::matmul(q, k.transpose(-2, -1)).mul_(scale);  // (B, H, T, T)
  if (hide.defined()) scores.masked_fill_(hide, fill);
  at::Tensor weights = at::softmax(scores, -1);
  if (dropout > 0 && training) weights = at::dropout(weights, dropout, true);
  return at::matmul(weights, v);  // (B, H, T, D)
}

double lowest_value(at::ScalarType dtype) {
  double v = std::numeric_limits<float>::lowest();
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, dtype, "lowest_value",
                                  [&] { v = static_cast<double>(std::numeric_limits<scalar_t>::lowest()); });
  return v;
}

}  // namespace runner::models
