// A leaf parameter's AccumulateGrad node: where autograd adds each backward's gradient to
// .grad. Hooks after it run once .grad holds that backward's contribution (DDP's buckets,
// ZeRO's reductions, the flat gradient's first write). Reached through public API only: the
// grad_fn of a view of the leaf has it as its next function, as PyTorch's Python DDP finds
// it. Autograd holds the node weakly, so whoever adds hooks keeps it alive for as long as
// they should fire.
#pragma once
#include <memory>

#include <ATen/ATen.h>
#include <torch/csrc/autograd/function.h>

namespace runner::optim {

// Null when `param` is not a leaf that requires grad.
std::shared_ptr<torch::autograd::Node> grad_accumulator(const at::Tensor& param);

}  // namespace runner::optim
