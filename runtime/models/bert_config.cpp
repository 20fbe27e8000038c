#include "runtime/models/bert_config.h"

#include "runtime/core/errors.h"
#include "runtime/core/json_fields.h"
#include "runtime/models/classifier_labels.h"

namespace runner::models {

using nlohmann::json;

namespace {

// The config.json keys of the sizes and dropouts, with the config class's defaults: BertConfig's
// (RobertaConfig's), AlbertConfig's, ElectraConfig's, or the names DistilBertConfig gives them.
struct Keys {
  const char *hidden, *layers, *heads, *intermediate, *dropout, *attn_dropout;
  int64_t vocab_default, hidden_default, layers_default, heads_default, intermediate_default;
  double dropout_default;
};
const Keys& keys_of(const std::string& model_type) {
  static const Keys bert{"hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", "hidden_dropout_prob",
                         "attention_probs_dropout_prob", 30522, 768, 12, 12, 3072, 0.1};
  static const Keys albert{"hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", "hidden_dropout_prob",
                           "attention_probs_dropout_prob", 30000, 4096, 12, 64, 16384, 0.0};
  static const Keys electra{"hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", "hidden_dropout_prob",
                            "attention_probs_dropout_prob", 30522, 256, 12, 4, 1024, 0.1};
  static const Keys distilbert{"dim", "n_layers", "n_heads", "hidden_dim", "dropout", "attention_dropout", 30522, 768, 6, 12, 3072, 0.1};
  return model_type == "distilbert" ? distilbert : model_type == "albert" ? albert : model_type == "electra" ? electra : bert;
}

}  // namespace

bool is_roberta_type(const std::string& t) { return t == "roberta" || t == "xlm-roberta" || t == "camembert"; }
bool is_encoder_type(const std::string& t) {
  return t == "bert" || t == "distilbert" || t == "albert" || t == "electra" || is_roberta_type(t);
}
std::string encoder_prefix(const std::string& t) { return is_roberta_type(t) ? "roberta" : t; }

std::string EncoderConfig::family() const {
  return model_type == "roberta"       ? "Roberta"
         : model_type == "xlm-roberta" ? "XLMRoberta"
         : model_type == "camembert"   ? "Camembert"
         : model_type == "distilbert"  ? "DistilBert"
         : model_type == "albert"      ? "Albert"
         : model_type == "electra"     ? "Electra"
                                       : "Bert";
}

std::string EncoderConfig::architecture() const {
  return family() + (masked_lm            ? "ForMaskedLM"
                     : question_answering ? "ForQuestionAnswering"
                     : multiple_choice    ? "ForMultipleChoice"
                     : per_token          ? "ForTokenClassification"
                                          : "ForSequenceClassification");
}

EncoderConfig bert_config_from_hf(const json& c, const std::string& where) {
  const JsonFields f(c, where);
  EncoderConfig e;  // the config class's defaults where a key is absent
  e.model_type = f.string("model_type", "bert");
  if (!is_encoder_type(e.model_type))
    throw CheckpointError("model_type \"" + e.model_type + "\" is not an encoder runner has (bert, roberta, xlm-roberta, camembert, distilbert, albert, electra)", where);
  ClassifierLabels labels = classifier_labels_from_hf(c, where);
  e.num_labels = labels.num_labels, e.labels = std::move(labels.names), e.problem_type = std::move(labels.problem_type);
  for (const auto& a : f.array("architectures"))
    if (a.is_string()) {
      if (a.get<std::string>().find("ForTokenClassification") != std::string::npos) e.per_token = true;
      if (a.get<std::string>().find("ForQuestionAnswering") != std::string::npos) e.question_answering = true;
      if (a.get<std::string>().find("ForMultipleChoice") != std::string::npos) e.multiple_choice = true;
    }
  const bool roberta = is_roberta_type(e.model_type);
  const Keys& k = keys_of(e.model_type);
  e.vocab_size = f.integer("vocab_size", k.vocab_default);
  e.hidden_size = f.integer(k.hidden, k.hidden_default);
  e.n_layer = f.integer(k.layers, k.layers_default);
  e.n_head = f.integer(k.heads, k.heads_default);
  e.intermediate_size = f.integer(k.intermediate, k.intermediate_default);
  e.max_position_embeddings = f.integer("max_position_embeddings", 512);
  e.dropout = f.number(k.dropout, k.dropout_default);
  e.attn_dropout = f.number(k.attn_dropout, k.dropout_default);
  e.pad_token_id = f.integer("pad_token_id", roberta ? 1 : 0);
  e.initializer_range = f.number("initializer_range", 0.02);
  if (e.model_type == "distilbert") {  // no token types, LayerNorm eps fixed at 1e-12
    e.classifier_dropout = f.number("seq_classif_dropout", 0.2);
    e.qa_dropout = f.number("qa_dropout", 0.1);
    const std::string act = f.string("activation", "gelu");
    if (act != "gelu") throw CheckpointError("activation \"" + act + "\" is not supported (DistilBERT uses gelu)", where);
    if (f.boolean("sinusoidal_pos_embds", false)) throw CheckpointError("sinusoidal_pos_embds = true is not supported", where);
    return e;
  }
  const bool albert = e.model_type == "albert";
  e.bos_token_id = f.integer("bos_token_id", roberta ? 0 : albert ? 2 : -1);
  e.eos_token_id = f.integer("eos_token_id", roberta ? 2 : albert ? 3 : -1);
  e.type_vocab_size = f.integer("type_vocab_size", 2);
  e.layer_norm_eps = f.number("layer_norm_eps", 1e-12);
  if (albert) {  // AlbertConfig: classifier_dropout_prob 0.1 (null: hidden_dropout_prob), gelu_new
    e.classifier_dropout = c.contains("classifier_dropout_prob") ? f.opt_number("classifier_dropout_prob") : std::optional<double>(0.1);
    e.embedding_size = f.integer("embedding_size", 128);
    e.hidden_groups = f.integer("num_hidden_groups", 1);
    e.inner_group_num = f.integer("inner_group_num", 1);
    e.hidden_act = f.string("hidden_act", "gelu_new");
    if (e.hidden_act != "gelu_new" && e.hidden_act != "gelu")
      throw CheckpointError("hidden_act \"" + e.hidden_act + "\" is not supported (ALBERT's gelu_new, or gelu)", where);
  } else {
    e.classifier_dropout = f.opt_number("classifier_dropout");
    const std::string act = f.string("hidden_act", "gelu");
    if (act != "gelu") throw CheckpointError("hidden_act \"" + act + "\" is not supported (BERT uses gelu)", where);
    if (e.model_type == "electra") {
      e.embedding_size = f.integer("embedding_size", 128);  // projected to hidden_size when they differ
      e.summary_last_dropout = f.number("summary_last_dropout", 0.1);
    }
  }
  if ((albert || e.model_type == "electra") && e.embedding_size <= 0)
    throw CheckpointError("embedding_size must be > 0, got " + std::to_string(e.embedding_size), where);
  const std::string positions = f.string("position_embedding_type", "absolute");
  if (positions != "absolute") throw CheckpointError("position_embedding_type \"" + positions + "\" is not supported (absolute is)", where);
  if (f.boolean("is_decoder", false) || f.boolean("add_cross_attention", false))
    throw CheckpointError("a BERT decoder (is_decoder / add_cross_attention) is not supported", where);
  return e;
}

json bert_config_json(const EncoderConfig& e, const std::string& dtype) {
  const Keys& k = keys_of(e.model_type);
  json j = {{"architectures", {e.architecture()}},
            {"model_type", e.model_type},
            {"vocab_size", e.vocab_size},
            {k.hidden, e.hidden_size},
            {k.layers, e.n_layer},
            {k.heads, e.n_head},
            {k.intermediate, e.intermediate_size},
            {k.dropout, e.dropout},
            {k.attn_dropout, e.attention_dropout()},
            {"max_position_embeddings", e.max_position_embeddings},
            {"initializer_range", e.initializer_range},
            {"pad_token_id", e.pad_token_id},
            {"dtype", dtype}};
  add_classifier_labels(j, {e.num_labels, e.labels, e.problem_type});
  if (e.model_type == "distilbert") {
    j["seq_classif_dropout"] = e.head_dropout();
    j["qa_dropout"] = e.qa_dropout;
    j["activation"] = "gelu";
    j["sinusoidal_pos_embds"] = false;
    return j;
  }
  j["hidden_act"] = e.hidden_act;
  j[e.model_type == "albert" ? "classifier_dropout_prob" : "classifier_dropout"] = e.classifier_dropout ? json(*e.classifier_dropout) : json(nullptr);
  if (e.model_type == "albert" || e.model_type == "electra") j["embedding_size"] = e.embedding_size > 0 ? e.embedding_size : e.hidden_size;
  if (e.model_type == "electra") j["summary_last_dropout"] = e.summary_last_dropout;
  if (e.model_type == "albert") {
    j["num_hidden_groups"] = e.hidden_groups;
    j["inner_group_num"] = e.inner_group_num;
  }
  j["type_vocab_size"] = e.type_vocab_size;
  j["layer_norm_eps"] = e.layer_norm_eps;
  j["position_embedding_type"] = "absolute";
  if (e.bos_token_id >= 0) j["bos_token_id"] = e.bos_token_id;
  if (e.eos_token_id >= 0) j["eos_token_id"] = e.eos_token_id;
  return j;
}

}  // namespace runner::models
