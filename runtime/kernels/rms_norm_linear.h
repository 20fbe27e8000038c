#pragma once
// A bias-free linear map of an RMSNorm's output, n · Aᵀ with n = rms_norm(x, weight, eps), as
// one autograd node that keeps the norm's input x (which the norm's own node keeps anyway)
// instead of n: backward recomputes n from x. For a LoRA branch's A on Llama's q/k/v and
// gate/up projections: the frozen base projections need nothing of n in backward, the
// branch's A needs n for its gradient, so without this node each norm's output, one
// (tokens × hidden) tensor, waits for backward; two per layer (1.07 GB at Llama-3.1-8B's shape
// and 2048 tokens in bf16).
#include <ATen/core/Tensor.h>

namespace runner::kernels {

// `n` is rms_norm(x, norm_weight, eps) as forward computed it (kernels/rms_norm.h); the node
// reads it forward and passes its gradient to it, so x and norm_weight get theirs through n's
// own node. Under autocast, `weight` and n are cast as at::linear casts them (weight through
// autocast's cache). Differentiable again (double backward).
at::Tensor rms_norm_linear(const at::Tensor& n, const at::Tensor& x, const at::Tensor& norm_weight, double eps, const at::Tensor& weight);

// Whether rms_norm_linear takes these inputs (fused kernels on; after autocast's cast, n and
// weight of one dtype; one device). Otherwise a caller runs at::linear(n, weight).
bool rms_norm_linear_is_one_node(const at::Tensor& n, const at::Tensor& x, const at::Tensor& norm_weight, const at::Tensor& weight);

}  // namespace runner::kernels
