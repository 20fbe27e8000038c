#include "runtime/models/rope.h"

#include <cmath>

#include "runtime/core/errors.h"
#include "runtime/kernels/rotary.h"

namespace runner::models {

at::Tensor rope_inv_freq(const RopeConfig& c, int64_t head_dim) {
  if (head_dim <= 0 || head_dim % 2 != 0) throw RecipeError("rotary embeddings need an even head dimension, got " + std::to_string(head_dim));
  if (!(c.theta > 0) || !std::isfinite(c.theta)) throw RecipeError("rope_theta must be a positive number");
  // HF: 1 / theta^(arange(0, D, 2) / D), the exponent in fp32.
  const at::Tensor exponent = at::arange(0, head_dim, 2, at::kLong).to(at::kFloat) / static_cast<double>(head_dim);
  at::Tensor inv_freq = 1.0 / at::pow(c.theta, exponent);
  if (c.type == "default") return inv_freq;
  if (!(c.factor >= 1.0) || !std::isfinite(c.factor)) throw RecipeError("rope_scaling factor must be a number >= 1");
  if (c.type == "linear") return inv_freq / c.factor;
  if (c.type != "llama3")
    throw RecipeError("rope type \"" + c.type + "\" is not supported (default, linear and llama3 are)");
  if (!(c.high_freq_factor > c.low_freq_factor) || !(c.low_freq_factor > 0) || c.original_max_position_embeddings <= 0)
    throw RecipeError("llama3 rope_scaling needs high_freq_factor > low_freq_factor > 0 and original_max_position_embeddings > 0");
  // Llama 3.1: wavelengths longer than the original context / low_freq_factor are slowed by
  // `factor`, shorter than it / high_freq_factor are kept, and the band between interpolates.
  const double old_len = static_cast<double>(c.original_max_position_embeddings);
  const double low_wavelen = old_len / c.low_freq_factor, high_wavelen = old_len / c.high_freq_factor;
  const at::Tensor wavelen = 2.0 * M_PI / inv_freq;
  at::Tensor scaled = at::where(wavelen > low_wavelen, inv_freq / c.factor, inv_freq);
  const at::Tensor smooth = (old_len / wavelen - c.low_freq_factor) / (c.high_freq_factor - c.low_freq_factor);
  const at::Tensor smoothed = (1.0 - smooth) * scaled / c.factor + smooth * scaled;
  const at::Tensor medium = wavelen.ge(high_wavelen).logical_and(wavelen.le(low_wavelen));
  return at::where(medium, smoothed, scaled);
}

std::pair<at::Tensor, at::Tensor> rope_cos_sin(const at::Tensor& inv_freq, const at::Tensor& positions, at::ScalarType dtype) {
  const at::Tensor freqs = positions.to(at::kFloat).unsqueeze(-1) * inv_freq.view({1, 1, -1});  // (B, T, D/2)
  const at::Tensor emb = at::cat({freqs, freqs}, -1);                                                                   // (B, T, D)
  return {emb.cos().to(dtype), emb.sin().to(dtype)};
}

at::Tensor apply_rope(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin) { return kernels::rotary(x, cos, sin); }

}  // namespace runner::models
