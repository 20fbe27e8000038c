#include "runtime/kernels/packed_attention.h"

#include <tuple>

#include <ATen/Context.h>
#include <ATen/ops/_flash_attention_forward.h>
#include <c10/util/Exception.h>
#include <torch/version.h>

#include "runtime/kernels/cuda_kernels.h"
#include "runtime/kernels/fused_switch.h"

// The op's window arguments came with LibTorch 2.5.
#define RUNNER_FLASH_WINDOW (TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 5))

namespace runner::kernels {

bool flash_attention_available(const at::Device& device, at::ScalarType dtype, int64_t head_dim) {
  if (!device.is_cuda() || !cuda::built() || !fused_kernels_enabled()) return false;
  if (dtype != at::kBFloat16 && dtype != at::kHalf) return false;
  if (head_dim <= 0 || head_dim % 8 != 0 || head_dim > 256) return false;
  if (at::globalContext().deterministicAlgorithms() || !at::globalContext().userEnabledFlashSDP()) return false;
  // ATen's own rules for its flash kernel (sdp_utils): sm80 to sm121, and on the consumer
  // parts (sm86 to sm89, Orin's sm87 included, and sm120, sm121) no backward for head dims above 192.
  const int cc = cuda::compute_capability(device);
  if (cc < 80 || cc > 121) return false;
  const bool consumer = (cc >= 86 && cc <= 89) || cc == 120 || cc == 121;
  return !(consumer && head_dim > 192);
}

bool packed_attention_takes_window() { return RUNNER_FLASH_WINDOW; }

at::Tensor packed_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& cu_seqlens,
                            int64_t max_len, at::ScalarType dtype, int64_t window) {
  TORCH_CHECK(q.dim() == 3 && k.dim() == 3 && v.dim() == 3, "packed_attention: q, k, v must be (tokens, heads, head_dim)");
  TORCH_CHECK(q.size(1) % k.size(1) == 0 && k.sizes().equals(v.sizes()), "packed_attention: query heads must be a multiple of key/value heads");
  TORCH_CHECK(q.size(0) == k.size(0) && q.size(2) == k.size(2), "packed_attention: q, k and v must hold the same tokens and head_dim");
  // Its values (the last must be the token count) stay unchecked: reading them would wait for the GPU.
  TORCH_CHECK(cu_seqlens.dim() == 1 && cu_seqlens.is_contiguous() && cu_seqlens.scalar_type() == at::kInt && cu_seqlens.device() == q.device(),
              "packed_attention: cu_seqlens must be contiguous 1-D int32 on the attention's device");
  // The kernel wants the head dimension contiguous; a cast or a copy gives that.
  auto prepared = [dtype](const at::Tensor& t) {
    at::Tensor x = t.scalar_type() == dtype ? t : t.to(dtype);
    return x.stride(-1) == 1 ? x : x.contiguous();
  };
  // Outputs: (out, logsumexp, rng state, unused, debug mask); autograd's FlashAttentionBackward0
  // keeps what backward needs.
#if RUNNER_FLASH_WINDOW
  // The kernel's window counts the keys before the query: a window of W keys is W - 1 of them.
  const std::optional<int64_t> left = window > 0 ? std::optional<int64_t>(window - 1) : std::nullopt;
  const std::optional<int64_t> right = window > 0 ? std::optional<int64_t>(0) : std::nullopt;
  auto out = at::_flash_attention_forward(prepared(q), prepared(k), prepared(v), cu_seqlens, cu_seqlens, max_len, max_len,
                                          /*dropout_p=*/0.0, /*is_causal=*/true, /*return_debug_mask=*/false, /*scale=*/std::nullopt,
                                          left, right);
#else
  TORCH_CHECK(window == 0, "packed_attention: a window needs LibTorch 2.5 or later (packed_attention_takes_window)");
  auto out = at::_flash_attention_forward(prepared(q), prepared(k), prepared(v), cu_seqlens, cu_seqlens, max_len, max_len,
                                          /*dropout_p=*/0.0, /*is_causal=*/true, /*return_debug_mask=*/false);
#endif
  return std::get<0>(out);
}

}  // namespace runner::kernels
