// Text generation for causal language models (Module::can_generate): greedy decoding,
// sampling (temperature, top-k, top-p) and beam search, with a key/value cache so each new
// token costs one position. Semantics are transformers' generate(): the prompts may be
// left-padded (attention_mask), rows that produced an end-of-sequence token are finished
// and padded with pad_token_id, and the result is prompt + new tokens.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include "runtime/models/module.h"

namespace runner::models {

struct GenerationConfig {
  int64_t max_new_tokens = 20;
  bool do_sample = false;
  double temperature = 1.0;
  int64_t top_k = 50;  // 0: off (HF default 50)
  double top_p = 1.0;  // 1: off
  int64_t num_beams = 1;
  double length_penalty = 1.0;  // beam search: scores are sum(log p) / length^length_penalty
  std::string early_stopping = "false";  // beam search, HF's early_stopping: "true" | "false" (a heuristic) | "never"
  std::vector<int64_t> eos_token_id;  // any of them finishes a row; empty: never
  int64_t pad_token_id = -1;          // -1: the first eos id, else 0
};

// The defaults a model brings (HF: its generation_config from config.json): eos_token_id and
// pad_token_id of hf_config_json(), when it has one.
GenerationConfig generation_defaults(const Module& model);

// A config's token-id entry (eos_token_id, pad_token_id): null/absent → {}, one id, or a list.
std::vector<int64_t> config_token_ids(const nlohmann::json& config, const char* key);

// input_ids (B, T) int64; attention_mask (B, T) with 0 at left padding, or undefined.
// Returns (B, T + n) int64, n <= max_new_tokens (fewer when every row finished early). The
// model runs in eval mode without gradients; its mode is restored afterwards. The prompts
// move to the device of the model's weights, and the result is on that device.
at::Tensor generate(Module& model, const at::Tensor& input_ids, const at::Tensor& attention_mask, const GenerationConfig& config);

// Beam search as transformers' _beam_search (num_beams > 1, no sampling): keeps the
// num_beams best running hypotheses by summed log-probability, finished hypotheses scored by
// sum / (generated length)^length_penalty, early_stopping deciding when to stop; returns the
// best finished hypothesis per row. Called by generate(); ids int64, no gradients.
at::Tensor beam_search(Module& model, const at::Tensor& ids, const at::Tensor& attention_mask, const GenerationConfig& config);

}  // namespace runner::models
