// Multi-head scaled dot-product attention in plain ATen, shared by the GPT-2 decoder and the
// BERT-like encoder: one batched matmul for q·kᵀ, a boolean "hidden" mask, softmax, one
// matmul with v.
#pragma once
#include <ATen/ATen.h>

namespace runner::models {

// (B, T, C) -> (B, H, T, C/H): a view, no copy.
at::Tensor split_heads(const at::Tensor& x, int64_t n_head);

// (B, H, T, D) -> (B, T, H·D)
at::Tensor merge_heads(const at::Tensor& x);

// softmax(q·kᵀ/√D, keys where `hide` is true set to `fill`) · v, with dropout on the
// attention weights. q, k, v: (B, H, T, D); hide: bool, broadcastable to (B, H, T, T), or
// undefined. Returns (B, H, T, D).
at::Tensor attend(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& hide, double fill,
                  double dropout, bool training);

// The most negative finite value of a floating dtype: a masked score that still gives a
// finite softmax when every key of a row is hidden (HF's finfo.min).
double lowest_value(at::ScalarType dtype);

}  // namespace runner::models
