#pragma once
// Causal attention over packed sequences on a GPU: the tokens of a (B, T) batch whose rows
// pack several sequences (position_ids that restart) attend within their own sequence only,
// through ATen's flash-attention kernel in its variable-length form (FlashAttention-2's
// varlen API, what HF's flash_attention_2 runs for packed rows). The alternative, SDPA with
// a dense (B, 1, T, T) block-diagonal mask, rules the flash kernel out, reads the mask in
// every head, and computes every score between sequences only to hide it; varlen skips those
// blocks and takes grouped-query attention's shared key/value heads as they are.
#include <cstdint>

#include <ATen/core/Tensor.h>

namespace runner::kernels {

// Whether ATen's flash kernel takes attention on `device` computed in `dtype` with head size
// `head_dim`, forward and backward (packed_attention; and SDPA's grouped-query form, which
// flash or cuDNN takes where this holds, models/attention.h): a CUDA device of compute
// capability 8.0 to 12.1 in a runner built with CUDA, bf16 or fp16, head_dim a multiple of 8
// up to 256 (192 on sm86/89/120/121, whose flash backward stops there), deterministic
// algorithms off (the flash backward accumulates in a nondeterministic order; SDPA picks a
// deterministic kernel then), flash not switched off in ATen, and the fused ops on
// (RUNNER_FUSED_KERNELS, fused_switch.h).
bool flash_attention_available(const at::Device& device, at::ScalarType dtype, int64_t head_dim);
// Whether packed_attention takes a sliding window (the op's window arguments: LibTorch 2.5+).
bool packed_attention_takes_window();

// softmax(q·kᵀ/√D)·v, causal within each sequence. q (B·T, H, D), k and v (B·T, Hkv, D) with H
// a multiple of Hkv (query heads j·H/Hkv ... share key/value head j); cast to `dtype` first
// (autocast does not reach this op). `cu_seqlens`: where each sequence starts among the B·T
// tokens, then B·T, (n + 1) int32 on the attention's device; `max_len`: the longest sequence's
// length (both must be exact: the kernel trusts them, and checking would wait for the GPU); at
// most 65535 sequences (the kernel's grid). `window` > 0: a query sees at most that many keys,
// itself included (a sliding window: Mistral's and transformers' sliding_window). Differentiable
// in q, k and v. Returns (B·T, H, D) in `dtype`.
at::Tensor packed_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& cu_seqlens,
                            int64_t max_len, at::ScalarType dtype, int64_t window = 0);

}  // namespace runner::kernels
