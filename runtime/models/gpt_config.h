// GPT-2's config.json (transformers' GPT2Config) read into make_gpt's config: GPT2LMHeadModel's,
// or GPT2ForSequenceClassification's with its labels.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/models/builtin.h"

namespace runner::models {

// CheckpointError naming `where` and the key for a setting runner does not implement
// (another activation, untied embeddings, cross-attention, ...).
GPTConfig gpt_config(const nlohmann::json& config, const std::string& where);

}  // namespace runner::models
