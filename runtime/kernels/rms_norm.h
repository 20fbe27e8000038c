#pragma once
// HF's LlamaRMSNorm as one autograd node:
//   y = weight · (x·r).to(x.dtype),  r = rsqrt(mean(x², last dim) + eps), in fp32 whatever x's dtype.
// It keeps x and r (one float per row) for backward. HF's chain of ATen ops keeps the fp32
// copy of x (under bf16), the normalised fp32 rows and their cast: two or three more
// (tokens × hidden) tensors per norm, two norms per Llama block. On CPU float32, forward and
// backward are one pass over the rows each; elsewhere the same formulas run as ATen ops.
#include <utility>

#include <ATen/core/Tensor.h>

namespace runner::kernels {

// x (..., H), weight (H). Differentiable in both (double backward included). The output
// has the promoted dtype of weight and x, as HF's `weight * normed.to(x.dtype)`.
at::Tensor rms_norm(const at::Tensor& x, const at::Tensor& weight, double eps);

// HF's code as plain ATen ops: what rms_norm replaces, for tests and benchmarks.
at::Tensor rms_norm_reference(const at::Tensor& x, const at::Tensor& weight, double eps);

// The raw CPU float32 kernels: (y, r) with r (rows); (d x, d weight).
std::pair<at::Tensor, at::Tensor> rms_norm_forward_cpu(const at::Tensor& x, const at::Tensor& weight, double eps);
std::pair<at::Tensor, at::Tensor> rms_norm_backward_cpu(const at::Tensor& grad, const at::Tensor& x, const at::Tensor& weight,
                                                        const at::Tensor& rstd);

// Whether rms_norm takes the CPU loops (CPU, float32 x and weight).
bool rms_norm_is_fused(const at::Tensor& x, const at::Tensor& weight);

}  // namespace runner::kernels
