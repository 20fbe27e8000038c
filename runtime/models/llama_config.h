// LlamaConfig ⇄ Hugging Face config.json (LlamaConfig, Qwen2Config, Qwen3Config, MistralConfig), in both
// the transformers v5 form (rope_parameters) and the v4 form (rope_theta + rope_scaling).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/models/builtin.h"

namespace runner::models {

// Fills the derived defaults (num_key_value_heads, head_dim) and checks the sizes; a
// RecipeError names `where` and the key.
void complete_llama_config(LlamaConfig& c, const std::string& where);

// True for the model_types llama_config_from_hf reads; their list ("llama, qwen2, ...") for messages.
bool is_llama_family(const std::string& model_type);
std::string llama_family_types();

// HF's class-name prefix per model_type (LlamaDecoderLayer, Qwen2DecoderLayer, ...): the
// type names no_split_modules and fsdp_transformer_layer_cls_to_wrap refer to.
std::string llama_class_prefix(const std::string& model_type);
// transformers' class of the body (LlamaModel, Gemma3TextModel) and of the whole model
// (LlamaForCausalLM, Qwen2ForSequenceClassification, Gemma3TextForSequenceClassification).
std::string llama_body_class(const std::string& model_type);
bool is_llama_body_class(const std::string& type);
std::string llama_architecture(const std::string& model_type, bool classifier);

// A config.json object → LlamaConfig. Settings runner does not implement (other rope types,
// activations, pretraining_tp > 1) are a CheckpointError naming the key, never ignored.
LlamaConfig llama_config_from_hf(const nlohmann::json& config, const std::string& where);

// The config.json transformers v5 writes for this model (architectures, rope_parameters, ...).
std::string llama_config_json(const LlamaConfig& c);

// A config.json's bos/eos/pad id entry (null, one integer, or a list: Llama 3's several
// end-of-turn tokens), read strictly (a CheckpointError naming `where` and the key) and
// written back (null when empty); GPT-2's config uses them too.
std::vector<int64_t> get_ids(const nlohmann::json& c, const std::string& key, const std::string& where);
nlohmann::json ids_json(const std::vector<int64_t>& ids);

}  // namespace runner::models
