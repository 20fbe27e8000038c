#include "runtime/models/gpt_config.h"

#include "runtime/core/errors.h"
#include "runtime/models/classifier_labels.h"
#include "runtime/models/llama_config.h"

namespace runner::models {

using nlohmann::json;

namespace {

int64_t config_int(const json& config, const std::string& key, const std::string& where) {
  auto it = config.find(key);
  if (it == config.end() || !it->is_number_integer()) throw CheckpointError("config.json needs an integer \"" + key + "\"", where);
  return it->get<int64_t>();
}

}  // namespace

GPTConfig gpt_config(const json& c, const std::string& where) {
  const std::string type = c.value("model_type", std::string());
  if (type != "gpt2") {
    const std::string supported = "(supported: gpt2, " + llama_family_types() + ", bert, roberta, xlm-roberta, camembert, distilbert, albert, electra)";
    throw CheckpointError(type.empty() ? "config.json has no model_type " + supported : "model_type \"" + type + "\" is not supported " + supported, where);
  }
  GPTConfig g;
  g.n_embd = config_int(c, "n_embd", where);
  g.n_layer = config_int(c, "n_layer", where);
  g.n_head = config_int(c, "n_head", where);
  g.vocab_size = config_int(c, "vocab_size", where);
  g.block_size = config_int(c, c.contains("n_positions") ? "n_positions" : "n_ctx", where);
  g.layer_norm_epsilon = c.value("layer_norm_epsilon", 1e-5);
  g.dropout = c.value("resid_pdrop", 0.1);  // GPT2Config's defaults
  g.attn_dropout = c.value("attn_pdrop", 0.1);
  g.embd_dropout = c.value("embd_pdrop", 0.1);
  g.bias = true;
  g.bos_token_id = get_ids(c, "bos_token_id", where);
  g.eos_token_id = get_ids(c, "eos_token_id", where);
  g.pad_token_id = get_ids(c, "pad_token_id", where);
  const std::string act = c.value("activation_function", std::string("gelu_new"));
  if (act != "gelu_new" && act != "gelu_pytorch_tanh")
    throw CheckpointError("activation_function \"" + act + "\" is not supported (GPT-2 uses gelu_new, the tanh approximation)", where);
  if (c.contains("n_inner") && !c["n_inner"].is_null() && c["n_inner"] != 4 * g.n_embd)
    throw CheckpointError("n_inner other than 4·n_embd is not supported", where);
  for (const char* flag : {"scale_attn_by_inverse_layer_idx", "reorder_and_upcast_attn", "add_cross_attention"})
    if (c.value(flag, false)) throw CheckpointError(std::string(flag) + " = true is not supported", where);
  if (!c.value("scale_attn_weights", true)) throw CheckpointError("scale_attn_weights = false is not supported", where);
  if (!c.value("tie_word_embeddings", true))
    throw CheckpointError("tie_word_embeddings = false is not supported (GPT-2's lm_head is the token embedding)", where);
  bool classifier = false;
  for (const auto& a : c.value("architectures", json::array())) classifier |= a == "GPT2ForSequenceClassification";
  if (classifier) {
    ClassifierLabels labels = classifier_labels_from_hf(c, where);
    g.num_labels = labels.num_labels, g.labels = std::move(labels.names), g.problem_type = std::move(labels.problem_type);
  }
  if (g.num_labels > 0 && g.pad_token_id.size() > 1)
    throw CheckpointError("a sequence classifier takes one pad_token_id (it finds each row's last token by it)", where);
  return g;
}

}  // namespace runner::models
