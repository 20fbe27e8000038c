// "This parameter's gradient has been accumulated": what DDP's buckets and ZeRO's reductions
// wait for. Autograd accumulates a leaf's gradient in an AccumulateGrad node; a hook after
// that node fires once .grad holds this backward's contribution.
#pragma once
#include <functional>
#include <memory>
#include <string>

#include <ATen/ATen.h>
#include <torch/csrc/autograd/function.h>

namespace runner::dist {

// Calls `ready` after each accumulation of `param`'s gradient, from a hook on its
// AccumulateGrad node (runtime/optim/grad_accumulator.h); the caller keeps the returned node
// alive for as long as the hook should fire. `name` names the parameter in the error for a
// parameter that is not a leaf requiring grad.
std::shared_ptr<torch::autograd::Node> on_grad_accumulated(const at::Tensor& param, const std::string& name, std::function<void()> ready);

}  // namespace runner::dist
