#include "runtime/optim/grad_accumulator.h"

#include <c10/core/GradMode.h>

namespace runner::optim {

std::shared_ptr<torch::autograd::Node> grad_accumulator(const at::Tensor& param) {
  if (!param.defined() || !param.is_leaf() || !param.requires_grad()) return nullptr;
  at::AutoGradMode grad(true);  // the view must record its grad_fn
  const at::Tensor view = param.view_as(param);
  return view.grad_fn() ? view.grad_fn()->next_edge(0).function : nullptr;
}

}  // namespace runner::optim
