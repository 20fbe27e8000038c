#include "runtime/train/eval_accumulator.h"

#include "runtime/core/errors.h"

namespace runner::train {

at::Tensor concat_padded(const at::Tensor& a, const at::Tensor& b, double padding) {
  if (!a.defined()) return b.defined() ? b.detach() : b;
  if (!b.defined()) return a;
  at::Tensor x = a, y = b.detach();
  if (x.dim() == 0) x = x.unsqueeze(0);
  if (y.dim() == 0) y = y.unsqueeze(0);
  if (x.dim() != y.dim()) throw RecipeError("evaluation outputs change rank between batches");
  if (x.dim() == 1 || x.size(1) == y.size(1)) return at::cat({x, y.to(x.scalar_type())}, 0);
  for (int64_t d = 2; d < x.dim(); ++d)
    if (x.size(d) != y.size(d)) throw RecipeError("evaluation outputs differ in more than their second dimension between batches");
  std::vector<int64_t> shape = x.sizes().vec();
  shape[0] = x.size(0) + y.size(0);
  shape[1] = std::max(x.size(1), y.size(1));
  at::Tensor out = at::full(shape, padding, x.options());
  out.narrow(0, 0, x.size(0)).narrow(1, 0, x.size(1)).copy_(x);
  out.narrow(0, x.size(0), y.size(0)).narrow(1, 0, y.size(1)).copy_(y);
  return out;
}

}  // namespace runner::train
