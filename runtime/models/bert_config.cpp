#include "runtime/models/bert_config.h"

#include "runtime/core/errors.h"

namespace runner::models {

using nlohmann::json;

namespace {

int64_t int_of(const json& c, const char* key, int64_t fallback, const std::string& where) {
  auto it = c.find(key);
  if (it == c.end() || it->is_null()) return fallback;
  if (!it->is_number_integer()) throw CheckpointError(std::string("\"") + key + "\" must be an integer", where);
  return it->get<int64_t>();
}

double number_of(const json& c, const char* key, double fallback, const std::string& where) {
  auto it = c.find(key);
  if (it == c.end() || it->is_null()) return fallback;
  if (!it->is_number()) throw CheckpointError(std::string("\"") + key + "\" must be a number", where);
  return it->get<double>();
}

// PretrainedConfig: num_labels is the size of id2label (2 by default); the names come along;
// problem_type picks the loss.
void read_labels(const json& c, EncoderConfig& e, const std::string& where) {
  e.num_labels = 2;
  e.labels.clear();
  if (auto it = c.find("id2label"); it != c.end() && it->is_object() && !it->empty()) {
    e.labels.assign(it->size(), "");
    for (const auto& [k, v] : it->items()) {
      size_t i = 0;
      try {
        i = std::stoul(k);
      } catch (const std::exception&) {
        throw CheckpointError("id2label keys must be 0 .. num_labels - 1, got \"" + k + "\"", where);
      }
      if (i >= e.labels.size() || !v.is_string()) throw CheckpointError("id2label keys must be 0 .. num_labels - 1, got \"" + k + "\"", where);
      e.labels[i] = v.get<std::string>();
    }
    e.num_labels = static_cast<int64_t>(e.labels.size());
  } else if (c.contains("num_labels")) {
    e.num_labels = int_of(c, "num_labels", 2, where);
  }
  if (c.contains("problem_type") && c["problem_type"].is_string()) e.problem_type = c["problem_type"].get<std::string>();
  if (!e.problem_type.empty() && e.problem_type != "regression" && e.problem_type != "single_label_classification" &&
      e.problem_type != "multi_label_classification")
    throw CheckpointError("problem_type \"" + e.problem_type + "\" is not one of regression, single_label_classification, multi_label_classification", where);
  if (e.problem_type == "regression" && e.num_labels != 1)
    throw CheckpointError("problem_type regression with " + std::to_string(e.num_labels) + " labels is not supported (num_labels = 1 is)", where);
}

}  // namespace

std::string EncoderConfig::architecture() const {
  const std::string family = model_type == "roberta" ? "Roberta" : model_type == "distilbert" ? "DistilBert" : "Bert";
  return family + (per_token ? "ForTokenClassification" : "ForSequenceClassification");
}

EncoderConfig bert_config_from_hf(const json& c, const std::string& where) {
  EncoderConfig e;  // BertConfig's (RobertaConfig's) defaults where a key is absent
  e.model_type = c.value("model_type", std::string("bert"));
  if (e.model_type != "bert" && e.model_type != "roberta" && e.model_type != "distilbert")
    throw CheckpointError("model_type \"" + e.model_type + "\" is not an encoder runner has (bert, roberta, distilbert)", where);
  read_labels(c, e, where);
  for (const auto& a : c.value("architectures", json::array()))
    if (a.is_string() && a.get<std::string>().find("ForTokenClassification") != std::string::npos) e.per_token = true;
  if (e.model_type == "distilbert") {  // DistilBertConfig's names and defaults
    e.vocab_size = int_of(c, "vocab_size", 30522, where);
    e.hidden_size = int_of(c, "dim", 768, where);
    e.n_layer = int_of(c, "n_layers", 6, where);
    e.n_head = int_of(c, "n_heads", 12, where);
    e.intermediate_size = int_of(c, "hidden_dim", 3072, where);
    e.max_position_embeddings = int_of(c, "max_position_embeddings", 512, where);
    e.dropout = number_of(c, "dropout", 0.1, where);
    e.attn_dropout = number_of(c, "attention_dropout", 0.1, where);
    e.classifier_dropout = number_of(c, "seq_classif_dropout", 0.2, where);
    e.pad_token_id = int_of(c, "pad_token_id", 0, where);
    e.initializer_range = number_of(c, "initializer_range", 0.02, where);
    e.layer_norm_eps = 1e-12;
    const std::string act = c.value("activation", std::string("gelu"));
    if (act != "gelu") throw CheckpointError("activation \"" + act + "\" is not supported (DistilBERT uses gelu)", where);
    if (c.value("sinusoidal_pos_embds", false)) throw CheckpointError("sinusoidal_pos_embds = true is not supported", where);
    return e;
  }
  const bool roberta = e.model_type == "roberta";
  e.bos_token_id = int_of(c, "bos_token_id", roberta ? 0 : -1, where);
  e.eos_token_id = int_of(c, "eos_token_id", roberta ? 2 : -1, where);
  e.vocab_size = int_of(c, "vocab_size", 30522, where);
  e.hidden_size = int_of(c, "hidden_size", 768, where);
  e.n_layer = int_of(c, "num_hidden_layers", 12, where);
  e.n_head = int_of(c, "num_attention_heads", 12, where);
  e.intermediate_size = int_of(c, "intermediate_size", 3072, where);
  e.max_position_embeddings = int_of(c, "max_position_embeddings", 512, where);
  e.type_vocab_size = int_of(c, "type_vocab_size", 2, where);
  e.layer_norm_eps = number_of(c, "layer_norm_eps", 1e-12, where);
  e.pad_token_id = int_of(c, "pad_token_id", roberta ? 1 : 0, where);
  e.dropout = number_of(c, "hidden_dropout_prob", 0.1, where);
  e.attn_dropout = number_of(c, "attention_probs_dropout_prob", 0.1, where);
  if (c.contains("classifier_dropout") && !c["classifier_dropout"].is_null()) e.classifier_dropout = number_of(c, "classifier_dropout", 0, where);
  e.initializer_range = number_of(c, "initializer_range", 0.02, where);
  const std::string act = c.value("hidden_act", std::string("gelu"));
  if (act != "gelu") throw CheckpointError("hidden_act \"" + act + "\" is not supported (BERT uses gelu)", where);
  const std::string positions = c.value("position_embedding_type", std::string("absolute"));
  if (positions != "absolute") throw CheckpointError("position_embedding_type \"" + positions + "\" is not supported (absolute is)", where);
  if (c.value("is_decoder", false) || c.value("add_cross_attention", false))
    throw CheckpointError("a BERT decoder (is_decoder / add_cross_attention) is not supported", where);
  return e;
}

json bert_config_json(const EncoderConfig& e, const std::string& dtype) {
  json id2label = json::object(), label2id = json::object();
  for (int64_t i = 0; i < e.num_labels; ++i) {
    const std::string name = static_cast<size_t>(i) < e.labels.size() && !e.labels[static_cast<size_t>(i)].empty()
                                 ? e.labels[static_cast<size_t>(i)]
                                 : "LABEL_" + std::to_string(i);
    id2label[std::to_string(i)] = name;
    label2id[name] = i;
  }
  if (e.model_type == "distilbert") {
    json j = {{"architectures", {e.architecture()}},
              {"model_type", "distilbert"},
              {"vocab_size", e.vocab_size},
              {"dim", e.hidden_size},
              {"n_layers", e.n_layer},
              {"n_heads", e.n_head},
              {"hidden_dim", e.intermediate_size},
              {"max_position_embeddings", e.max_position_embeddings},
              {"dropout", e.dropout},
              {"attention_dropout", e.attention_dropout()},
              {"seq_classif_dropout", e.head_dropout()},
              {"activation", "gelu"},
              {"sinusoidal_pos_embds", false},
              {"initializer_range", e.initializer_range},
              {"pad_token_id", e.pad_token_id},
              {"id2label", id2label},
              {"label2id", label2id},
              {"dtype", dtype}};
    if (!e.problem_type.empty()) j["problem_type"] = e.problem_type;
    return j;
  }
  const bool roberta = e.model_type == "roberta";
  json j = {{"architectures", {e.architecture()}},
            {"model_type", e.model_type},
            {"vocab_size", e.vocab_size},
            {"hidden_size", e.hidden_size},
            {"num_hidden_layers", e.n_layer},
            {"num_attention_heads", e.n_head},
            {"intermediate_size", e.intermediate_size},
            {"hidden_act", "gelu"},
            {"hidden_dropout_prob", e.dropout},
            {"attention_probs_dropout_prob", e.attention_dropout()},
            {"classifier_dropout", e.classifier_dropout ? json(*e.classifier_dropout) : json(nullptr)},
            {"max_position_embeddings", e.max_position_embeddings},
            {"type_vocab_size", e.type_vocab_size},
            {"initializer_range", e.initializer_range},
            {"layer_norm_eps", e.layer_norm_eps},
            {"pad_token_id", e.pad_token_id},
            {"position_embedding_type", "absolute"},
            {"id2label", id2label},
            {"label2id", label2id},
            {"dtype", dtype}};
  if (!e.problem_type.empty()) j["problem_type"] = e.problem_type;
  if (e.bos_token_id >= 0) j["bos_token_id"] = e.bos_token_id;
  if (e.eos_token_id >= 0) j["eos_token_id"] = e.eos_token_id;
  return j;
}

}  // namespace runner::models
