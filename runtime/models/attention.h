// Multi-head scaled dot-product attention, shared by the GPT-2 decoder and the BERT-like
// encoder, through ATen's scaled_dot_product_attention: it picks the flash or
// memory-efficient kernel where the device and inputs allow (CUDA; the CPU flash kernel),
// and the plain matmul-softmax-matmul composition otherwise.
#pragma once
#include <ATen/ATen.h>

namespace runner::models {

// (B, T, C) -> (B, H, T, C/H): a view, no copy.
at::Tensor split_heads(const at::Tensor& x, int64_t n_head);

// (B, H, T, D) -> (B, T, H·D)
at::Tensor merge_heads(const at::Tensor& x);

// softmax(q·kᵀ/√D + mask) · v, with dropout on the attention weights. q, k, v: (B, H, T, D).
// `causal`: a query sees only keys at or before its position. `hide`: bool, broadcastable to
// (B, H, T, T), true for keys a query must not see (padding), or undefined; hidden scores
// get the dtype's lowest finite value (HF's finfo.min), and a row whose keys are all hidden
// returns zeros (PyTorch's SDPA on a boolean mask; transformers' default). `grouped`: k and
// v have H/n heads, each serving n query heads (SDPA's enable_gqa; see
// sdpa_takes_grouped_heads). Returns (B, H, T, D).
at::Tensor attend(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& hide, bool causal,
                  double dropout, bool training, bool grouped = false);

// The dtype SDPA computes attention on q in: autocast's where it is on for q's device, else q's.
at::ScalarType attention_compute_dtype(const at::Tensor& q);

// Whether this LibTorch's SDPA takes grouped key/value heads (enable_gqa, 2.5 and later).
bool sdpa_takes_grouped_heads();

// The most negative finite value of a floating dtype: a hidden score (HF's finfo.min), which
// bf16/fp16 cannot hold as float's lowest (that would round to -inf).
double lowest_value(at::ScalarType dtype);

}  // namespace runner::models
