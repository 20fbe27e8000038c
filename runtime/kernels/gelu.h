#pragma once
// Tanh-approximated GELU (PyTorch's gelu(approximate="tanh"), HF "gelu_new") as one pass
// over memory forward and one backward, on CPU float32. ATen's CPU backward for this
// approximation evaluates tanh element by element and costs more than the matmuls around it
// on small models (docs/performance.md, "Fused kernels"). Other devices and dtypes, and
// double backward, use ATen's kernels: same values, same autograd graph.
#include <ATen/core/Tensor.h>

namespace runner::kernels {

// Differentiable; equals at::gelu(x, "tanh") to float rounding (tests/kernels/test_gelu.cpp).
at::Tensor gelu_tanh(const at::Tensor& x);

// The raw CPU float32 kernels (contiguous tensors), for tests and benchmarks.
at::Tensor gelu_tanh_forward_cpu(const at::Tensor& x);
at::Tensor gelu_tanh_backward_cpu(const at::Tensor& grad, const at::Tensor& x);

// Whether gelu_tanh takes the fused path for x (CPU, float32).
bool gelu_tanh_is_fused(const at::Tensor& x);

}  // namespace runner::kernels
