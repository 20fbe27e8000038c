#pragma once
// LayerNorm over the last dimension, written in autocast's low dtype, for a norm whose output
// only feeds matrix multiplies (GPT's ln_1, ln_2, ln_f). Under autocast ATen runs layer_norm in
// fp32 (its fp32 list): x, weight and bias are upcast, the fp32 result is written, and the
// matmul that reads it casts it down to bf16/fp16 in a pass of its own; backward casts the
// matmul's low-dtype gradient up to fp32 before the norm's backward. Writing the low dtype
// directly gives the matmul the very same values and drops both casts and half of the norm's
// output: about 100 MB of traffic per norm at GPT-2's 8 × 1024 tokens. One autograd node,
// runner's CUDA kernel (cuda/layer_norm.cu); other devices keep ATen's layer_norm.
#include <ATen/core/Tensor.h>

namespace runner::kernels {

// x (..., H) float32/bf16/fp16 on a GPU; weight and bias (H), one dtype, each may be
// undefined (1 and 0); `out` bf16 or fp16. Differentiable in x, weight and bias (double
// backward through the reference). Returns (..., H) in `out`.
at::Tensor layer_norm_to(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias, double eps, at::ScalarType out);

// Whether layer_norm_to runs for these inputs: runner's CUDA kernels built and on
// (RUNNER_FUSED_KERNELS), x on a GPU with weight and bias beside it, dtypes the kernel takes.
bool layer_norm_to_takes_kernel(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias, at::ScalarType out);

// What it replaces, as ATen ops: layer_norm in fp32 of the upcast inputs, cast to `out`.
at::Tensor layer_norm_to_reference(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias, double eps, at::ScalarType out);

}  // namespace runner::kernels
