#pragma once
// SwiGLU into a linear layer, down(silu(gate) · up) (the Llama family's MLP), as one autograd
// node that keeps gate and up (SwiGLU's own node keeps them anyway) but not their product s.
// The linear layer needs s in backward only for a gradient of its weight, or of a LoRA
// branch's A (peft's branch reads the layer's input); backward recomputes s from gate and up,
// one elementwise pass. So one (tokens × intermediate) tensor per layer less waits between
// forward and backward: at Llama-3.1-8B's 14336 and 2048 tokens, 59 MB per layer in bf16,
// 1.9 GB over the 32 layers, which decides whether a LoRA step of that shape fits in 24 GiB
// without gradient checkpointing (docs/performance.md).
#include <ATen/core/Tensor.h>

#include "runtime/kernels/linear_weights.h"

namespace runner::kernels {

// linear(swiglu(gate, up), weight, bias) [+ scaling · (s · Aᵀ) · Bᵀ], differentiable (double
// backward included). Under autocast the weights are cast as autocast casts a linear layer's
// (its weight cache included). Inputs swiglu_linear_is_one_node declines run the op chain
// (swiglu_linear_reference), whose ops have their own rules: mixed dtypes without autocast
// are at::linear's error there, as in the chain. Backward recomputes s only for the gradient
// of the weight or of A.
at::Tensor swiglu_linear(const at::Tensor& gate, const at::Tensor& up, const LinearWeights& w);

// Whether swiglu_linear takes these inputs as one node: fused kernels on; after autocast's
// casts one dtype and device for all; gate and up of one shape; and, with gradients on, gate
// or up wanting one (else SwiGLU keeps nothing and the chain keeps only s, where the node
// would keep gate and up). A model runs the layer's own forward otherwise.
bool swiglu_linear_is_one_node(const at::Tensor& gate, const at::Tensor& up, const LinearWeights& w);

// The op chain the node replaces (kernels::swiglu, at::linear and the LoRA branch as
// models.lora adds it under autocast: one addmm), for tests.
at::Tensor swiglu_linear_reference(const at::Tensor& gate, const at::Tensor& up, const LinearWeights& w);

}  // namespace runner::kernels
