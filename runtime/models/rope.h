// Rotary position embeddings (RoPE) as Hugging Face's Llama family computes them: the
// rotation frequencies inv_freq[i] = theta^(-2i/D) for i < D/2, optionally rescaled for long
// contexts ("linear", Llama 3's "llama3"), and the "rotate half" pairing of dimension i with
// i + D/2 (not the interleaved pairing of the original paper).
#pragma once
#include <string>

#include <ATen/ATen.h>

namespace runner::models {

struct RopeConfig {
  double theta = 10000.0;
  std::string type = "default";  // default | linear | llama3
  double factor = 1.0;           // linear, llama3
  double low_freq_factor = 1.0, high_freq_factor = 4.0;  // llama3
  int64_t original_max_position_embeddings = 8192;       // llama3
};

// (D/2) float32 frequencies for head dimension D. Throws RecipeError for a bad config.
at::Tensor rope_inv_freq(const RopeConfig& config, int64_t head_dim);

// cos and sin (B, T, D) in `dtype` for integer positions (B, T): computed in fp32, as HF.
std::pair<at::Tensor, at::Tensor> rope_cos_sin(const at::Tensor& inv_freq, const at::Tensor& positions, at::ScalarType dtype);

// x (B, H, T, D) rotated by cos/sin (B, T, D).
at::Tensor apply_rope(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin);

}  // namespace runner::models
