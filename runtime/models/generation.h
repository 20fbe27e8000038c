// Text generation for causal language models (Module::can_generate): greedy decoding,
// sampling (temperature, top-k, top-p) and beam search, with a key/value cache so each new
// token costs one position. Semantics are transformers' generate(): the prompts may be
// left-padded (attention_mask), rows that produced an end-of-sequence token are finished
// and padded with pad_token_id, and the result is prompt + new tokens.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include "runtime/models/module.h"

namespace runner::models {

struct GenerationConfig {
  int64_t max_new_tokens = -1;  // -1: unset, which means max_length's remainder, else 20
  bool do_sample = false;
  double temperature = 1.0;
  int64_t top_k = 50;  // 0: off (HF default 50)
  double top_p = 1.0;  // 1: off
  int64_t num_beams = 1;
  double length_penalty = 1.0;  // beam search: scores are sum(log p) / length^length_penalty
  std::string early_stopping = "false";  // beam search, HF's early_stopping: "true" | "false" (a heuristic) | "never"
  std::vector<int64_t> eos_token_id;  // any of them finishes a row; empty: never
  int64_t pad_token_id = -1;          // -1: the first eos id, else 0
  double repetition_penalty = 1.0;    // HF's RepetitionPenaltyLogitsProcessor; 1: off
  // The length with the prompt (HF's max_length), used when max_new_tokens is unset: then
  // max_length - prompt length new tokens; a prompt that long already is an error (HF).
  std::optional<int64_t> max_length;
  // The model's max_position_embeddings (GPT-2's n_positions): HF's default length (the
  // prompt + 20) stops there.
  std::optional<int64_t> max_position_embeddings;
};

// The defaults a model brings, as transformers' GenerationConfig.from_model_config and
// from_pretrained give them: eos_token_id and pad_token_id of its config.json
// (hf_config_json()), then its folder's generation_config.json (for LoRA adapters, their base
// model's folder), which runner generate, model:generate and predict_with_generate all start
// from. Settings of that file that would change the output and runner does not implement are
// a CheckpointError naming the key.
GenerationConfig generation_defaults(const Module& model);
// The generation_config.json HF's save_pretrained writes beside a model that can generate,
// given its parsed hf_config_json(): the one of the folder it was read from, else
// GenerationConfig.from_model_config's (the config's bos/eos/pad ids). Null unless the config
// names a causal-LM class (transformers' can_generate), and for a LoRA model (peft writes
// only the adapters).
nlohmann::json generation_config_to_save(const Module& model, const nlohmann::json& config);
// Seq2SeqTrainingArguments.generation_config: a folder's generation_config.json, or a JSON
// file, parsed and checked as generation reads it (a CheckpointError naming the file and key
// for a setting runner does not implement), as transformers' load_generation_config validates it.
// ArgumentError when the path is neither (a Hub model id cannot be fetched here).
nlohmann::json load_generation_config(const std::string& path);
// generation_config.json's object `config` (file `where`) over `g`.
void apply_generation_config(const nlohmann::json& config, const std::string& where, GenerationConfig& g);
// HF's RepetitionPenaltyLogitsProcessor: the scores (N, V) of every token in `ids` (N, L)
// (prompt and generated, padding included, as HF does) divided by `penalty` where positive,
// multiplied where negative.
at::Tensor penalize_repeats(const at::Tensor& scores, const at::Tensor& ids, double penalty);

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
