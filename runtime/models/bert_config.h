// A BERT config.json (transformers' BertConfig) read into make_encoder_classifier's config,
// and the config.json it writes back, so a BertForSequenceClassification folder (or a
// pretrained BERT, whose classifier is then new) loads with models.from_pretrained and what
// the Trainer saves loads with transformers' AutoModelForSequenceClassification.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/models/builtin.h"

namespace runner::models {

// CheckpointError naming `where` and the key for a setting runner does not implement
// (hidden_act other than gelu, relative position embeddings, a decoder).
EncoderConfig bert_config_from_hf(const nlohmann::json& config, const std::string& where);
nlohmann::json bert_config_json(const EncoderConfig& config, const std::string& dtype);  // dtype: "float32", ...

}  // namespace runner::models
