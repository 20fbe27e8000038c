#include "runtime/dist/grad_ready.h"

#include <torch/csrc/autograd/utils/lambda_post_hook.h>

#include "runtime/core/errors.h"
#include "runtime/optim/grad_accumulator.h"

namespace runner::dist {

std::shared_ptr<torch::autograd::Node> on_grad_accumulated(const at::Tensor& param, const std::string& name, std::function<void()> ready) {
  if (!param.is_leaf() || !param.requires_grad()) throw DistError("parameter '" + name + "' is not a leaf that requires grad");
  std::shared_ptr<torch::autograd::Node> accumulator = optim::grad_accumulator(param);
  if (!accumulator) throw DistError("parameter '" + name + "': autograd gives it no gradient accumulator");
  accumulator->add_post_hook(std::make_unique<torch::autograd::utils::LambdaPostHook>(
      [ready = std::move(ready)](const torch::autograd::variable_list& outputs, const torch::autograd::variable_list&) {
        ready();
        return outputs;
      }));
  return accumulator;
}

}  // namespace runner::dist
