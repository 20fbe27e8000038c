#pragma once
// SwiGLU, silu(gate) · up (the Llama family's MLP), as one autograd node that keeps only its
// two inputs. ATen's silu and mul keep silu(gate) too: one more (tokens × intermediate) tensor
// per layer, the largest activation of a Llama block; backward recomputes it instead. On CPU
// float32, forward and backward are one pass each (vectorised loops); elsewhere ATen's ops
// give exactly the numbers of at::silu(gate) * up and its autograd (tests/kernels/test_swiglu.cpp).
#include <utility>

#include <ATen/core/Tensor.h>

namespace runner::kernels {

// Differentiable (double backward included). Inputs of different shapes or dtypes fall back
// to at::silu(gate) * up.
at::Tensor swiglu(const at::Tensor& gate, const at::Tensor& up);

// The node's forward and backward without autograd, on whichever kernel the inputs take (for
// fused nodes that recompute SwiGLU, swiglu_linear.h). Gradients not wanted are undefined.
at::Tensor swiglu_values(const at::Tensor& gate, const at::Tensor& up);
std::pair<at::Tensor, at::Tensor> swiglu_grads(const at::Tensor& dy, const at::Tensor& gate, const at::Tensor& up, bool want_gate = true,
                                               bool want_up = true);

// The raw CPU float32 kernels, for tests and benchmarks: y, and (d gate, d up).
at::Tensor swiglu_forward_cpu(const at::Tensor& gate, const at::Tensor& up);
std::pair<at::Tensor, at::Tensor> swiglu_backward_cpu(const at::Tensor& grad, const at::Tensor& gate, const at::Tensor& up);

// Whether swiglu takes the one-pass CPU loops for these inputs (CPU, float32, same shape).
bool swiglu_is_fused(const at::Tensor& gate, const at::Tensor& up);

}  // namespace runner::kernels
