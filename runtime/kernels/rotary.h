#pragma once
// Rotary position embeddings (HF's apply_rotary_pos_emb for one tensor):
//   y = x·cos + rotate_half(x)·sin,  rotate_half(x) = cat(−x[D/2:], x[:D/2]),
// for x (B, H, T, D) — any strides with D contiguous, e.g. the transposed view of a
// projection — and cos, sin (B, T, D) shared by the heads. ATen spends a narrow, a neg, a
// cat, two muls and an add each way; on CPU float32 this is one pass forward and one back
// (backward is the rotation by −θ), the output in x's layout. Elsewhere, or when cos/sin need
// gradients, it is HF's chain of ATen ops.
#include <ATen/core/Tensor.h>

namespace runner::kernels {

// Differentiable in x. Output dtype: the promoted dtype of x and cos (HF's).
at::Tensor rotary(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin);

// HF's code as plain ATen ops, for tests, benchmarks and the fallback.
at::Tensor rotary_reference(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin);

// Whether rotary takes the CPU loop for these tensors.
bool rotary_is_fused(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin);

}  // namespace runner::kernels
