// LlamaConfig ⇄ Hugging Face config.json (LlamaConfig, Qwen2Config, MistralConfig), in both
// the transformers v5 form (rope_parameters) and the v4 form (rope_theta + rope_scaling).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/models/builtin.h"

namespace runner::models {

// Fills the derived defaults (num_key_value_heads, head_dim) and checks the sizes; a
// RecipeError names `where` and the key.
void complete_llama_config(LlamaConfig& c, const std::string& where);

// True for the model_types llama_config_from_hf reads.
bool is_llama_family(const std::string& model_type);

// A config.json object → LlamaConfig. Settings runner does not implement (other rope types,
// activations, pretraining_tp > 1) are a CheckpointError naming the key, never ignored.
LlamaConfig llama_config_from_hf(const nlohmann::json& config, const std::string& where);

// The config.json transformers v5 writes for this model (architectures, rope_parameters, ...).
std::string llama_config_json(const LlamaConfig& c);

}  // namespace runner::models
