// require "runner.models": the built-in models (batch in, {loss, logits} out), HF GPT-2
// checkpoints, TorchScript modules exported from Python, and weight files.
#include "bindings/lua/lua_module.h"
#include "bindings/lua/builtin_losses.h"
#include "runtime/core/did_you_mean.h"
#include "runtime/core/errors.h"
#include "runtime/core/text.h"
#include "runtime/io/safetensors.h"
#include "runtime/models/builtin.h"
#include "runtime/models/classifier_labels.h"
#include "runtime/models/llama_config.h"
#include "runtime/models/lora.h"
#include "runtime/models/pretrained.h"
#include "runtime/models/torchscript.h"

namespace runner::lua {

namespace {

int ret(lua_State* L, models::ModulePtr m) {
  push_module(L, std::move(m));
  return 1;
}

int m_linear(lua_State* L) {
  Options o(L, 1, "models.linear");
  models::LinearModelOptions opt;
  opt.in_features = o.integer("in_features", opt.in_features);
  opt.out_features = o.integer("out_features", opt.out_features);
  opt.input = o.string("input", "");
  o.finish();
  return ret(L, models::make_linear_model(opt));
}

int m_mlp(lua_State* L) {
  Options o(L, 1, "models.mlp");
  models::MLPOptions opt;
  opt.sizes = o.int_list("sizes", {});
  if (opt.sizes.size() < 2) throw RecipeError("models.mlp: sizes needs at least an input and an output size, e.g. {784, 256, 10}");
  opt.activation = o.string("activation", opt.activation);
  opt.dropout = o.number("dropout", opt.dropout);
  opt.loss = o.string("loss", opt.loss);
  opt.input = o.string("input", "");
  o.finish();
  return ret(L, models::make_mlp(opt));
}

int m_cnn(lua_State* L) {
  Options o(L, 1, "models.cnn");
  models::CNNOptions opt;
  opt.in_channels = o.integer("in_channels", opt.in_channels);
  opt.channels = o.int_list("channels", opt.channels);
  opt.hidden = o.integer("hidden", opt.hidden);
  opt.num_classes = o.integer("num_classes", opt.num_classes);
  opt.dropout = o.number("dropout", opt.dropout);
  opt.image_size = o.integer("image_size", opt.image_size);
  opt.input = o.string("input", "");
  o.finish();
  return ret(L, models::make_cnn(opt));
}

int m_gpt(lua_State* L) {
  Options o(L, 1, "models.gpt");
  models::GPTConfig c;
  c.vocab_size = o.integer("vocab_size", c.vocab_size);
  c.block_size = o.integer("block_size", c.block_size);
  c.n_layer = o.integer("n_layer", c.n_layer);
  c.n_head = o.integer("n_head", c.n_head);
  c.n_embd = o.integer("n_embd", c.n_embd);
  c.dropout = o.number("dropout", c.dropout);
  if (o.has("attn_dropout")) c.attn_dropout = o.number("attn_dropout", c.dropout);
  if (o.has("embd_dropout")) c.embd_dropout = o.number("embd_dropout", c.dropout);
  c.bias = o.boolean("bias", c.bias);
  c.layer_norm_epsilon = o.number("layer_norm_epsilon", c.layer_norm_epsilon);
  const bool fused = o.boolean("fused_linear_cross_entropy", true);
  // num_labels (labels: their names) makes GPT2ForSequenceClassification.
  c.labels = o.string_list("labels", {});
  c.num_labels = o.integer("num_labels", static_cast<int64_t>(c.labels.size()));
  if (o.has("num_labels") && c.num_labels <= 0) throw RecipeError("models.gpt: num_labels must be > 0 (a sequence classifier)");
  c.problem_type = o.string("problem_type", "");
  if (!c.problem_type.empty() && c.num_labels == 0) throw RecipeError("models.gpt: problem_type is a classifier's; give num_labels (or labels) too");
  if (!c.problem_type.empty() && !models::is_problem_type(c.problem_type))
    throw RecipeError("models.gpt: problem_type must be regression, single_label_classification or multi_label_classification, got \"" + c.problem_type + "\"");
  if (o.has("pad_token_id")) c.pad_token_id = {o.integer("pad_token_id", 0)};
  o.finish();
  models::ModulePtr m = models::make_gpt(c);
  m->set_fused_linear_cross_entropy(fused);
  return ret(L, m);
}

// models.llama{...}: the keys and defaults of HF's LlamaConfig / Qwen2Config / Qwen3Config / MistralConfig / Gemma3TextConfig
// (model_type picks which), read by the same code as a config.json.
int m_llama(lua_State* L) {
  static const std::vector<std::string> kKeys = {
      "model_type", "vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
      "num_key_value_heads", "head_dim", "max_position_embeddings", "rms_norm_eps", "attention_dropout", "initializer_range",
      "rope_theta", "rope_scaling", "rope_parameters", "attention_bias", "mlp_bias", "tie_word_embeddings", "sliding_window",
      "use_sliding_window", "max_window_layers", "layer_types", "hidden_act", "bos_token_id", "eos_token_id", "pad_token_id",
      "fused_linear_cross_entropy", "num_labels", "labels", "id2label", "problem_type", "query_pre_attn_scalar", "rope_local_base_freq",
      "sliding_window_pattern", "hidden_activation", "final_logit_softcapping", "attn_logit_softcapping", "use_bidirectional_attention"};
  nlohmann::json config = lua_isnoneornil(L, 1) ? nlohmann::json::object() : to_json(L, 1, "models.llama");
  if (!config.is_object()) throw RecipeError("models.llama: expected a table of options");
  for (const auto& [key, value] : config.items())
    if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end())
      throw RecipeError("models.llama: unknown option '" + key + "'" + did_you_mean(key, kKeys));
  if (!config.contains("model_type")) config["model_type"] = "llama";
  // A key the model type's transformers class does not read would be taken and ignored.
  const std::string type = config["model_type"].is_string() ? config["model_type"].get<std::string>() : "";
  // Per model_type, those keys and why (Llama's for any other type).
  struct Unread {
    const char* type;
    std::vector<std::string> keys;
    const char* why;
  };
  static const std::vector<Unread> kUnread = {
      {"mistral", {"attention_bias", "mlp_bias", "use_sliding_window", "max_window_layers", "layer_types"},
       "Mistral has no biases and one sliding_window on every layer"},
      {"qwen2", {"attention_bias", "mlp_bias"}, "Qwen 2 always has q/k/v biases and none elsewhere"},
      {"qwen3", {"mlp_bias"}, "Qwen 3's MLP has no biases"},
      {"gemma3_text", {"mlp_bias", "use_sliding_window", "max_window_layers", "hidden_act"},
       "Gemma 3's MLP has no biases, its activation is hidden_activation and its window is on layer_types' sliding layers"},
      {"llama", {"sliding_window", "use_sliding_window", "max_window_layers", "layer_types"},
       "Llama has no sliding window; model_type mistral, qwen2, qwen3 or gemma3_text has one"}};
  const auto own = std::find_if(kUnread.begin(), kUnread.end(), [&](const Unread& u) { return type == u.type; });
  const Unread& unread = own != kUnread.end() ? *own : kUnread.back();
  const std::string named = type.empty() ? config["model_type"].dump() : type;
  if (type != "gemma3_text")  // Gemma 3's own keys
    for (const char* key : {"query_pre_attn_scalar", "rope_local_base_freq", "sliding_window_pattern", "hidden_activation", "final_logit_softcapping",
                            "attn_logit_softcapping", "use_bidirectional_attention"})
      if (config.contains(key))
        throw RecipeError("models.llama: '" + std::string(key) + "' is a key of model_type gemma3_text (Gemma3TextConfig), not of " + named);
  for (const auto& key : unread.keys)
    if (config.contains(key))
      throw RecipeError("models.llama: model_type " + named + " does not take '" + key + "' (" + unread.why + ")");
  bool fused = true;  // runner's option, not a config.json key
  if (auto it = config.find("fused_linear_cross_entropy"); it != config.end()) {
    if (!it->is_boolean()) throw RecipeError("models.llama: fused_linear_cross_entropy must be true or false, got " + it->dump());
    fused = it->get<bool>();
    config.erase(it);
  }
  // num_labels (labels: their names) makes LlamaForSequenceClassification, as the config of
  // AutoModelForSequenceClassification.from_config would.
  if (auto it = config.find("labels"); it != config.end()) {  // the names in id order: id2label as a list
    if (!it->is_array()) throw RecipeError("models.llama: labels must be a list of class names");
    if (config.contains("id2label")) throw RecipeError("models.llama: give labels or id2label, not both");
    config["id2label"] = *it;
    config.erase("labels");
  }
  if (auto it = config.find("id2label"); it != config.end() && it->is_array()) {  // a Lua list: the names in id order
    nlohmann::json names = nlohmann::json::object();
    for (size_t i = 0; i < it->size(); ++i) names[std::to_string(i)] = (*it)[i];
    *it = names;
  }
  if (auto it = config.find("id2label"); it != config.end() &&
      !(it->is_object() && !it->empty() && std::all_of(it->begin(), it->end(), [](const nlohmann::json& v) { return v.is_string(); })))
    throw RecipeError("models.llama: id2label must name the classes ({\"neg\", \"pos\"}, or {[\"0\"] = \"neg\", ...}); labels = {...} is the same");
  if (config.contains("problem_type") && !config.contains("num_labels") && !config.contains("id2label"))
    throw RecipeError("models.llama: problem_type is a classifier's; give num_labels (or labels) too");
  if (config.contains("num_labels") || config.contains("id2label")) {
    if (config.contains("num_labels") && !(config["num_labels"].is_number_integer() && config["num_labels"].get<int64_t>() > 0))
      throw RecipeError("models.llama: num_labels must be an integer > 0 (a sequence classifier), got " + config["num_labels"].dump());
    if (config.contains("id2label") && config.contains("num_labels") && config["id2label"].size() != config["num_labels"].get<size_t>())
      throw RecipeError("models.llama: labels names " + std::to_string(config["id2label"].size()) + " labels but num_labels is " + config["num_labels"].dump());
    config["architectures"] = {"LlamaForSequenceClassification"};
  }
  try {
    models::ModulePtr m = models::make_llama(models::llama_config_from_hf(config, "models.llama"));
    m->set_fused_linear_cross_entropy(fused);
    return ret(L, m);
  } catch (const CheckpointError& e) {
    throw RecipeError("models.llama: " + e.message());
  }
}

int m_encoder_classifier(lua_State* L) {
  Options o(L, 1, "models.encoder_classifier");
  models::EncoderConfig c;
  c.vocab_size = o.integer("vocab_size", c.vocab_size);
  c.max_position_embeddings = o.integer("max_position_embeddings", c.max_position_embeddings);
  c.type_vocab_size = o.integer("type_vocab_size", c.type_vocab_size);
  c.n_layer = o.integer("n_layer", c.n_layer);
  c.n_head = o.integer("n_head", c.n_head);
  c.hidden_size = o.integer("hidden_size", c.hidden_size);
  c.intermediate_size = o.integer("intermediate_size", c.intermediate_size);
  c.dropout = o.number("dropout", c.dropout);
  c.labels = o.string_list("labels", {});  // id2label's names, in id order
  c.num_labels = o.integer("num_labels", c.labels.empty() ? c.num_labels : static_cast<int64_t>(c.labels.size()));
  if (!c.labels.empty() && c.num_labels != static_cast<int64_t>(c.labels.size()))
    throw RecipeError("models.encoder_classifier: labels names " + std::to_string(c.labels.size()) + " labels but num_labels is " + std::to_string(c.num_labels));
  c.layer_norm_eps = o.number("layer_norm_eps", c.layer_norm_eps);
  // "bert", "roberta", "xlm-roberta", "camembert", "distilbert", "albert" or "electra" (names, positions and head as HF's)
  c.model_type = o.string("model_type", c.model_type);
  if (models::is_roberta_type(c.model_type)) c.pad_token_id = 1, c.bos_token_id = 0, c.eos_token_id = 2;  // RobertaConfig's
  if (c.model_type == "albert") {  // AlbertConfig's ids and activation; its factorised, shared layers
    c.bos_token_id = 2, c.eos_token_id = 3, c.hidden_act = "gelu_new";
    c.embedding_size = o.integer("embedding_size", c.hidden_size);
    c.hidden_groups = o.integer("num_hidden_groups", c.hidden_groups);
    c.inner_group_num = o.integer("inner_group_num", c.inner_group_num);
    c.hidden_act = o.string("hidden_act", c.hidden_act);
  } else {
    if (c.model_type == "electra") {
      c.embedding_size = o.integer("embedding_size", c.hidden_size);  // projected to hidden_size when narrower
      if (c.embedding_size <= 0) throw RecipeError("models.encoder_classifier: embedding_size must be > 0");
    } else if (o.has("embedding_size")) {
      throw RecipeError("models.encoder_classifier: embedding_size is ALBERT's (model_type = \"albert\") and ELECTRA's (\"electra\")");
    }
    for (const char* key : {"num_hidden_groups", "inner_group_num", "hidden_act"})
      if (o.has(key)) throw RecipeError(std::string("models.encoder_classifier: ") + key + " is ALBERT's (model_type = \"albert\")");
  }
  c.pad_token_id = o.integer("pad_token_id", c.pad_token_id);
  const std::string task = o.string("task", "sequence_classification");
  if (task != "sequence_classification" && task != "token_classification" && task != "masked_lm" && task != "question_answering" && task != "multiple_choice")
    throw RecipeError(
        "models.encoder_classifier: task must be \"sequence_classification\", \"token_classification\", \"masked_lm\", \"question_answering\" or \"multiple_choice\", got \"" +
        task + "\"");
  c.per_token = task == "token_classification";
  c.masked_lm = task == "masked_lm";
  c.question_answering = task == "question_answering";
  c.multiple_choice = task == "multiple_choice";
  if (c.multiple_choice) c.num_labels = 1;  // a score per choice
  if ((c.masked_lm || c.question_answering || c.multiple_choice) && (o.has("num_labels") || !c.labels.empty()))
    throw RecipeError("models.encoder_classifier: num_labels and labels are for a classifier, not task = \"" + task + "\"");
  if (c.question_answering) c.num_labels = 2;  // start, end
  if (o.has("qa_dropout")) {  // DistilBertForQuestionAnswering's dropout before qa_outputs
    if (c.model_type != "distilbert" || !c.question_answering)
      throw RecipeError("models.encoder_classifier: qa_dropout is DistilBERT's question-answering head's (model_type = \"distilbert\", task = \"question_answering\")");
    c.qa_dropout = o.number("qa_dropout", c.qa_dropout);
    if (c.qa_dropout < 0 || c.qa_dropout >= 1) throw RecipeError("models.encoder_classifier: qa_dropout must be in [0, 1)");
  }
  o.finish();
  return ret(L, models::make_encoder_classifier(c));
}

// models.lora(model, {r = 8, alpha = 8, dropout = 0, target_modules = {"q_proj", "v_proj"} | "regex" |
// "all-linear", exclude_modules = {...} | "regex", use_rslora = false, init_lora_weights = true | false | "gaussian", task_type = "CAUSAL_LM",
// modules_to_save = {...}, base_model_name_or_path}): adapts the model in place (peft's get_peft_model) and returns it.
int m_lora(lua_State* L) {
  auto m = peek_module(L, 1);
  Options o(L, 2, "models.lora");
  models::LoraConfig c;
  c.r = o.integer("r", c.r);
  c.alpha = o.number("alpha", c.alpha);
  c.dropout = o.number("dropout", c.dropout);
  if (o.has("target_modules")) {
    lua_getfield(L, 2, "target_modules");
    const bool is_string = lua_type(L, -1) == LUA_TSTRING;
    lua_pop(L, 1);
    if (is_string) {
      const std::string t = o.string("target_modules", "");
      if (t == "all-linear") c.target_modules = {t};
      else c.target_regex = t;
    } else {
      c.target_modules = o.string_list("target_modules", {});
    }
  }
  if (o.has("exclude_modules")) {  // peft's: a list of names or one regular expression
    lua_getfield(L, 2, "exclude_modules");
    const bool is_string = lua_type(L, -1) == LUA_TSTRING;
    lua_pop(L, 1);
    if (is_string) c.exclude_regex = o.string("exclude_modules", "");
    else c.exclude_modules = o.string_list("exclude_modules", {});
  }
  c.use_rslora = o.boolean("use_rslora", c.use_rslora);
  if (o.has("init_lora_weights")) {  // true, false or "gaussian" (peft's)
    lua_getfield(L, 2, "init_lora_weights");
    const bool is_string = lua_type(L, -1) == LUA_TSTRING;
    lua_pop(L, 1);
    models::set_lora_init(c, is_string ? o.string("init_lora_weights", "") : (o.boolean("init_lora_weights", true) ? "true" : "false"));
  }
  // A sequence classifier's default is peft's SEQ_CLS (its head then trains and is saved), a
  // token classifier's TOKEN_CLS, an extractive QA model's QUESTION_ANS.
  const std::string type = m->type_name();
  const bool sequences = ends_with(type, "ForSequenceClassification"), tokens = ends_with(type, "ForTokenClassification"),
             spans = ends_with(type, "ForQuestionAnswering");
  c.task_type = o.string("task_type", sequences ? "SEQ_CLS" : tokens ? "TOKEN_CLS" : spans ? "QUESTION_ANS" : c.task_type);
  c.modules_to_save = o.string_list("modules_to_save", {});
  c.base_model_name_or_path = o.string("base_model_name_or_path", "");
  o.finish();
  models::apply_lora(*m, c);
  push_module(L, m);
  return 1;
}

// The weights stay in their files until the Trainer (or recipe code using the model) needs
// them: under ZeRO-3 each rank then reads only its shards (parameter_store.h).
// models.from_pretrained(dir[, {dtype = "auto" | "float32" | "bfloat16" | "float16", fused_linear_cross_entropy = true,
// num_labels, labels = {name, ...}, task = "sequence_classification" | "token_classification" | "masked_lm" | "question_answering" |
// "multiple_choice", pad_token_id}])
int m_from_pretrained(lua_State* L) {
  const std::string dir = checked_path(luaL_checkstring(L, 1), "models.from_pretrained");
  Options o(L, 2, "models.from_pretrained");
  const std::string dtype = o.string("dtype", "auto");
  const bool fused = o.boolean("fused_linear_cross_entropy", true);
  int64_t num_labels = 0;  // 0: the config's
  if (o.has("num_labels") && (num_labels = o.integer("num_labels", 0)) <= 0) throw RecipeError("models.from_pretrained: num_labels must be > 0");
  const std::vector<std::string> labels = o.string_list("labels", {});  // id2label's names, in id order
  const std::string task = o.string("task", "");  // "sequence_classification" | "token_classification" | "masked_lm" | "question_answering"
  if (!labels.empty() && num_labels > 0 && num_labels != static_cast<int64_t>(labels.size()))
    throw RecipeError("models.from_pretrained: labels names " + std::to_string(labels.size()) + " labels but num_labels is " + std::to_string(num_labels));
  std::optional<int64_t> pad_token_id;
  if (o.has("pad_token_id") && (pad_token_id = o.integer("pad_token_id", 0)) < 0) throw RecipeError("models.from_pretrained: pad_token_id must be >= 0");
  o.finish();
  models::ModulePtr m = models::from_pretrained(dir, /*deferred=*/true, dtype, num_labels, labels, task, pad_token_id);  // GPT-2, Llama family or BERT
  m->set_fused_linear_cross_entropy(fused);
  return ret(L, m);
}
int m_torchscript(lua_State* L) { return ret(L, models::load_torchscript(checked_path(luaL_checkstring(L, 1), "models.torchscript"))); }

// models.load_weights(model, "file.safetensors"[, {strict = true}]) → {missing_keys, unexpected_keys}
int m_load_weights(lua_State* L) {
  auto m = check_module(L, 1);
  const std::string file = checked_path(luaL_checkstring(L, 2), "models.load_weights");
  Options o(L, 3, "models.load_weights");
  const bool strict = o.boolean("strict", true);
  o.finish();
  check_whole(m->state_dict(), "models.load_weights");
  auto report = models::load_weights(*m, file, strict);
  push_load_report(L, report);
  return 1;
}

// models.save_weights(model, "file.safetensors"): the state dict, PyTorch names.
int m_save_weights(lua_State* L) {
  auto m = check_module(L, 1);
  const models::NamedTensorList weights = m->state_dict();
  check_whole(weights, "models.save_weights");
  io::save_safetensors(checked_path(luaL_checkstring(L, 2), "module:save"), weights, {{"format", "pt"}});
  return 0;
}

}  // namespace

void push_models_module(lua_State* L) {
  lua_newtable(L);
  set_functions(L, {{"linear", guarded<m_linear>},
                    {"mlp", guarded<m_mlp>},
                    {"cnn", guarded<m_cnn>},
                    {"gpt", guarded<m_gpt>},
                    {"llama", guarded<m_llama>},
                    {"encoder_classifier", guarded<m_encoder_classifier>},
                    {"from_pretrained", guarded<m_from_pretrained>},
                    {"lora", guarded<m_lora>},
                    {"dpo_loss", guarded<m_dpo_loss>},
                    {"reward_loss", guarded<m_reward_loss>},
                    {"torchscript", guarded<m_torchscript>},
                    {"load_weights", guarded<m_load_weights>},
                    {"save_weights", guarded<m_save_weights>}});
}

}  // namespace runner::lua
