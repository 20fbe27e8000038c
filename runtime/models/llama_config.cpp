#include "runtime/models/llama_config.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "runtime/core/errors.h"
#include "runtime/models/classifier_labels.h"

namespace runner::models {

using nlohmann::json;

namespace {

// The family's members: config.json's model_type, the prefix of transformers' class names and
// the two that do not follow it (Gemma 3's text-only classes say "Text").
struct Member {
  const char* model_type;
  const char* class_prefix;
  const char* body = nullptr;        // <prefix>Model unless given
  const char* classifier = nullptr;  // <prefix>ForSequenceClassification unless given
};
constexpr Member kMembers[] = {{"llama", "Llama"},
                               {"qwen2", "Qwen2"},
                               {"qwen3", "Qwen3"},
                               {"mistral", "Mistral"},
                               {"gemma3_text", "Gemma3", "Gemma3TextModel", "Gemma3TextForSequenceClassification"}};

const Member* member(const std::string& type) {
  for (const Member& m : kMembers)
    if (type == m.model_type) return &m;
  return nullptr;
}

// Qwen 2 and 3 read the same window keys (use_sliding_window, max_window_layers, layer_types).
bool qwen(const std::string& type) { return type == "qwen2" || type == "qwen3"; }


// Whether a config.json is a *ForSequenceClassification's (its architectures say so).
bool classifier_config(const json& j) {
  auto it = j.find("architectures");
  if (it == j.end() || !it->is_array()) return false;
  return std::any_of(it->begin(), it->end(), [](const json& a) {
    const std::string kSuffix = "ForSequenceClassification";
    return a.is_string() && a.get<std::string>().size() > kSuffix.size() && a.get<std::string>().rfind(kSuffix) == a.get<std::string>().size() - kSuffix.size();
  });
}

int64_t get_int(const json& c, const std::string& key, int64_t fallback, const std::string& where) {
  auto it = c.find(key);
  if (it == c.end() || it->is_null()) return fallback;
  if (!it->is_number_integer()) throw CheckpointError("\"" + key + "\" must be an integer", where);
  return it->get<int64_t>();
}

double get_number(const json& c, const std::string& key, double fallback, const std::string& where) {
  auto it = c.find(key);
  if (it == c.end() || it->is_null()) return fallback;
  if (!it->is_number()) throw CheckpointError("\"" + key + "\" must be a number", where);
  return it->get<double>();
}

bool get_bool(const json& c, const std::string& key, bool fallback, const std::string& where) {
  auto it = c.find(key);
  if (it == c.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) throw CheckpointError("\"" + key + "\" must be true or false", where);
  return it->get<bool>();
}

// v5's per-layer attention kinds.
std::vector<bool> layer_types(const json& types, const std::string& where) {
  std::vector<bool> sliding;
  for (const auto& t : types) {
    const std::string kind = t.is_string() ? t.get<std::string>() : "";
    if (kind != "full_attention" && kind != "sliding_attention")
      throw CheckpointError("layer_types entries must be \"full_attention\" or \"sliding_attention\"", where);
    sliding.push_back(kind == "sliding_attention");
  }
  return sliding;
}

RopeConfig rope_from_hf(const json& c, const std::string& where) {
  RopeConfig r;
  // v5: rope_parameters {rope_type, rope_theta, ...}; v4: rope_theta, rope_scaling {type|rope_type, ...}.
  // rope_scaling wins where both are present, as transformers' `rope_scaling or rope_parameters`
  // (a v5 folder whose config a user gave a rope_scaling keeps rope_parameters' defaults).
  const auto object = [&](const char* key) { return c.contains(key) && c[key].is_object() ? c[key] : json::object(); };
  const json scaling = object("rope_scaling"), v5 = object("rope_parameters");
  const json& params = scaling.empty() ? v5 : scaling;
  r.theta = get_number(params, "rope_theta", get_number(v5, "rope_theta", get_number(c, "rope_theta", r.theta, where), where), where);
  std::string type = params.value("rope_type", params.value("type", std::string("default")));
  if (type != "default" && type != "linear" && type != "llama3")
    throw CheckpointError("rope type \"" + type + "\" is not supported (default, linear and llama3 are)", where);
  r.type = type;
  // transformers refuses a scaled rope without its parameters rather than assume them.
  std::vector<const char*> required;
  if (type != "default") required.push_back("factor");
  if (type == "llama3") required.insert(required.end(), {"low_freq_factor", "high_freq_factor"});
  for (const char* key : required)
    if (!params.contains(key)) throw CheckpointError("rope type \"" + type + "\" needs \"" + key + "\"", where);
  r.factor = get_number(params, "factor", r.factor, where);
  r.low_freq_factor = get_number(params, "low_freq_factor", r.low_freq_factor, where);
  r.high_freq_factor = get_number(params, "high_freq_factor", r.high_freq_factor, where);
  // llama3's original length: a top-level value first, then the rope's, else the model's.
  r.original_max_position_embeddings = get_int(
      c, "original_max_position_embeddings",
      get_int(params, "original_max_position_embeddings", get_int(c, "max_position_embeddings", r.original_max_position_embeddings, where), where),
      where);
  return r;
}

// rope_from_hf on one part of a per-layer-type rope (Gemma 3's full_attention / sliding_attention):
// v5's rope_parameters[part], else v4's flat keys (`scaling`, `theta`).
// A rope_scaling beside them goes over rope_parameters[part], as Gemma3TextConfig merges it.
RopeConfig rope_part(const json& c, const char* part, double theta, const json& scaling, const std::string& where) {
  json flat = {{"rope_theta", theta}};
  if (c.contains("max_position_embeddings")) flat["max_position_embeddings"] = c["max_position_embeddings"];
  json params = json::object();
  if (auto rp = c.find("rope_parameters"); rp != c.end() && rp->is_object() && rp->contains(part) && (*rp)[part].is_object()) params = (*rp)[part];
  if (scaling.is_object()) params.update(scaling);
  if (!params.empty()) flat["rope_parameters"] = params;
  return rope_from_hf(flat, where);
}

json rope_json(const RopeConfig& r) {
  json rope = {{"rope_type", r.type}, {"rope_theta", r.theta}};
  if (r.type != "default") rope["factor"] = r.factor;
  if (r.type == "llama3") {
    rope["low_freq_factor"] = r.low_freq_factor;
    rope["high_freq_factor"] = r.high_freq_factor;
    rope["original_max_position_embeddings"] = r.original_max_position_embeddings;
  }
  return rope;
}

// Gemma3TextConfig's own keys, read as transformers reads them; what runner does not implement
// (Gemma 2's soft-capping, EmbeddingGemma's bidirectional attention, other activations) is refused.
void gemma3_from_hf(const json& j, LlamaConfig& c, const std::string& where) {
  c.qkv_bias = c.o_bias = get_bool(j, "attention_bias", false, where);
  c.query_pre_attn_scalar = get_int(j, "query_pre_attn_scalar", 256, where);
  const std::string act = j.contains("hidden_activation") && j["hidden_activation"].is_string() ? j["hidden_activation"].get<std::string>()
                                                                                                 : "gelu_pytorch_tanh";
  if (act != "gelu_pytorch_tanh") throw CheckpointError("hidden_activation \"" + act + "\" is not supported (Gemma 3 uses gelu_pytorch_tanh)", where);
  for (const char* key : {"final_logit_softcapping", "attn_logit_softcapping"})
    if (j.contains(key) && !j[key].is_null()) throw CheckpointError(std::string(key) + " is not supported (Gemma 2's soft-capping; Gemma 3 has none)", where);
  if (get_bool(j, "use_bidirectional_attention", false, where))
    throw CheckpointError("use_bidirectional_attention (EmbeddingGemma's encoder) is not supported", where);
  // The sliding layers (layer_types', else all but every sliding_window_pattern-th, 6) attend
  // to the last sliding_window keys (4096 when absent) and rotate by the local rope. A Gemma 3
  // without a window does not run in transformers: refused.
  if (j.contains("sliding_window") && !(j["sliding_window"].is_number_integer() && j["sliding_window"].get<int64_t>() > 0))
    throw CheckpointError("\"sliding_window\" must be an integer > 0 for gemma3_text (transformers cannot run a Gemma 3 without one), got " +
                              j["sliding_window"].dump(),
                          where);
  c.sliding_window = get_int(j, "sliding_window", 4096, where);
  if (j.contains("layer_types") && j["layer_types"].is_array()) {
    c.sliding_layers = layer_types(j["layer_types"], where);
  } else {
    const int64_t pattern = get_int(j, "sliding_window_pattern", 6, where);
    if (pattern <= 0) throw CheckpointError("\"sliding_window_pattern\" must be > 0", where);
    for (int64_t i = 0; i < c.num_hidden_layers; ++i) c.sliding_layers.push_back((i + 1) % pattern != 0);
  }
  // The full layers rotate by rope_theta (1e6) with rope_scaling, the sliding ones by
  // rope_local_base_freq (1e4); v5 gives each its own rope_parameters.
  c.rope = rope_part(j, "full_attention", get_number(j, "rope_theta", 1e6, where), j.value("rope_scaling", json()), where);
  c.local_rope = rope_part(j, "sliding_attention", get_number(j, "rope_local_base_freq", 1e4, where), json(), where);
}

}  // namespace

std::vector<int64_t> get_ids(const json& c, const std::string& key, const std::string& where) {
  auto it = c.find(key);
  if (it == c.end() || it->is_null()) return {};
  if (it->is_number_integer()) return {it->get<int64_t>()};
  std::vector<int64_t> ids;
  if (it->is_array())
    for (const auto& v : *it) {
      if (!v.is_number_integer()) throw CheckpointError("\"" + key + "\" must hold integers", where);
      ids.push_back(v.get<int64_t>());
    }
  else
    throw CheckpointError("\"" + key + "\" must be an integer or a list of integers", where);
  return ids;
}

json ids_json(const std::vector<int64_t>& ids) {
  if (ids.empty()) return nullptr;
  if (ids.size() == 1) return ids[0];
  return ids;
}

bool is_llama_family(const std::string& t) {
  return member(t) != nullptr;
}

std::string llama_family_types() {
  std::string out;
  for (const Member& m : kMembers) out += (out.empty() ? "" : ", ") + std::string(m.model_type);
  return out;
}

std::string llama_class_prefix(const std::string& model_type) {
  const Member* m = member(model_type);
  return m ? m->class_prefix : "Llama";
}

std::string llama_body_class(const std::string& model_type) {
  const Member* m = member(model_type);
  return m && m->body ? m->body : llama_class_prefix(model_type) + "Model";
}

std::string llama_architecture(const std::string& model_type, bool classifier) {
  const Member* m = member(model_type);
  if (classifier && m && m->classifier) return m->classifier;
  return llama_class_prefix(model_type) + (classifier ? "ForSequenceClassification" : "ForCausalLM");
}

bool is_llama_body_class(const std::string& type) {
  return std::any_of(std::begin(kMembers), std::end(kMembers), [&](const Member& m) { return type == llama_body_class(m.model_type); });
}

void complete_llama_config(LlamaConfig& c, const std::string& where) {
  if (!is_llama_family(c.model_type))
    throw RecipeError(where + ": model_type \"" + c.model_type + "\" is not a Llama-family type (" + llama_family_types() + ")");
  c.gemma = c.model_type == "gemma3_text";
  c.qk_norm = c.model_type == "qwen3" || c.gemma;  // Qwen3Attention's and Gemma3Attention's q_norm and k_norm, always there
  if (c.vocab_size <= 0 || c.hidden_size <= 0 || c.intermediate_size <= 0 || c.num_hidden_layers <= 0 || c.num_attention_heads <= 0)
    throw RecipeError(where + ": vocab_size, hidden_size, intermediate_size, num_hidden_layers and num_attention_heads must be > 0");
  if (c.num_key_value_heads == 0) c.num_key_value_heads = c.num_attention_heads;
  if (c.num_key_value_heads < 0 || c.num_attention_heads % c.num_key_value_heads != 0)
    throw RecipeError(where + ": num_attention_heads (" + std::to_string(c.num_attention_heads) +
                      ") must be a multiple of num_key_value_heads (" + std::to_string(c.num_key_value_heads) + ")");
  if (c.head_dim == 0) {
    if (c.hidden_size % c.num_attention_heads != 0)
      throw RecipeError(where + ": hidden_size must be divisible by num_attention_heads (or give head_dim)");
    c.head_dim = c.hidden_size / c.num_attention_heads;
  }
  if (c.head_dim < 0 || c.head_dim % 2 != 0) throw RecipeError(where + ": head_dim must be even (rotary embeddings pair dimensions)");
  if (!(c.rms_norm_eps > 0) || !std::isfinite(c.rms_norm_eps)) throw RecipeError(where + ": rms_norm_eps must be > 0");
  if (!(c.attention_dropout >= 0 && c.attention_dropout < 1)) throw RecipeError(where + ": attention_dropout must be in [0, 1)");
  if (c.sliding_window < 0) throw RecipeError(where + ": sliding_window must be >= 0 (0: none)");
  if (c.gemma && c.query_pre_attn_scalar == 0) c.query_pre_attn_scalar = c.head_dim;
  if (c.query_pre_attn_scalar < 0) throw RecipeError(where + ": query_pre_attn_scalar must be > 0");
  if (c.gemma && c.mlp_bias) throw RecipeError(where + ": gemma3_text has no mlp_bias");
  if (c.gemma && c.sliding_window <= 0)
    throw RecipeError(where + ": gemma3_text needs sliding_window > 0 (transformers cannot run a Gemma 3 without one; all-full layer_types attend to all)");
  if (c.num_labels < 0) throw RecipeError(where + ": num_labels must be >= 0 (0: a causal language model)");
  if (!c.labels.empty() && static_cast<int64_t>(c.labels.size()) != c.num_labels)
    throw RecipeError(where + ": id2label names " + std::to_string(c.labels.size()) + " labels but num_labels is " + std::to_string(c.num_labels));
  if (c.num_labels > 0 && c.pad_token_id.size() > 1)
    throw RecipeError(where + ": a sequence classifier takes one pad_token_id (it finds each row's last token by it), got " +
                      std::to_string(c.pad_token_id.size()));
  if (!c.sliding_layers.empty() && static_cast<int64_t>(c.sliding_layers.size()) != c.num_hidden_layers)
    throw RecipeError(where + ": layer_types must list num_hidden_layers entries");
  const double C = static_cast<double>(c.hidden_size), I = static_cast<double>(c.intermediate_size);
  const double attn = C * static_cast<double>(c.head_dim) * static_cast<double>(2 * c.num_attention_heads + 2 * c.num_key_value_heads);
  check_model_scale(where, c.num_hidden_layers,
                    2 * static_cast<double>(c.vocab_size) * C + static_cast<double>(c.num_hidden_layers) * (attn + 3 * C * I + 2 * C));
}

LlamaConfig llama_config_from_hf(const json& j, const std::string& where) {
  LlamaConfig c;
  c.model_type = j.value("model_type", std::string());
  c.vocab_size = get_int(j, "vocab_size", c.vocab_size, where);
  c.hidden_size = get_int(j, "hidden_size", c.hidden_size, where);
  c.intermediate_size = get_int(j, "intermediate_size", c.intermediate_size, where);
  c.num_hidden_layers = get_int(j, "num_hidden_layers", c.num_hidden_layers, where);
  c.num_attention_heads = get_int(j, "num_attention_heads", c.num_attention_heads, where);
  c.num_key_value_heads = get_int(j, "num_key_value_heads", 0, where);
  const bool gemma = c.model_type == "gemma3_text";
  // Qwen3Config's default is 128 and Gemma3TextConfig's 256, not hidden_size / heads
  c.head_dim = get_int(j, "head_dim", c.model_type == "qwen3" ? 128 : gemma ? 256 : 0, where);
  c.max_position_embeddings = get_int(j, "max_position_embeddings", c.max_position_embeddings, where);
  c.rms_norm_eps = get_number(j, "rms_norm_eps", c.rms_norm_eps, where);
  c.attention_dropout = get_number(j, "attention_dropout", 0.0, where);
  c.initializer_range = get_number(j, "initializer_range", 0.02, where);
  c.rope = rope_from_hf(j, where);
  c.tie_word_embeddings = get_bool(j, "tie_word_embeddings", gemma, where);
  // Each type reads only the fields its transformers class reads (a field another class
  // takes, e.g. a Mistral config's attention_bias or layer_types, is ignored as there).
  if (qwen(c.model_type)) {
    // Qwen 2 always has q/k/v biases and no o_proj bias; Qwen 3's attention_bias is all or none.
    if (c.model_type == "qwen2") c.qkv_bias = true;
    else c.qkv_bias = c.o_bias = get_bool(j, "attention_bias", false, where);
    // Qwen2Config / Qwen3Config: no window unless use_sliding_window; then sliding_window (4096 when absent)
    // on the layers from max_window_layers (28 when absent) on, or as layer_types lists them.
    if (get_bool(j, "use_sliding_window", false, where)) {
      c.sliding_window = j.contains("sliding_window") ? get_int(j, "sliding_window", 0, where) : 4096;
      if (c.sliding_window > 0) {
        const int64_t full_layers = get_int(j, "max_window_layers", 28, where);
        for (int64_t i = 0; i < c.num_hidden_layers; ++i) c.sliding_layers.push_back(i >= full_layers);
        if (j.contains("layer_types") && j["layer_types"].is_array()) c.sliding_layers = layer_types(j["layer_types"], where);
        if (std::none_of(c.sliding_layers.begin(), c.sliding_layers.end(), [](bool s) { return s; }))
          c.sliding_layers.clear(), c.sliding_window = 0;
      }
    }
  } else if (gemma) {
    gemma3_from_hf(j, c, where);
  } else if (c.model_type == "mistral") {
    // MistralConfig: one window on every layer, 4096 when the key is absent, none when null.
    c.sliding_window = j.contains("sliding_window") ? get_int(j, "sliding_window", 0, where) : 4096;
  } else {
    c.qkv_bias = c.o_bias = get_bool(j, "attention_bias", false, where);
    c.mlp_bias = get_bool(j, "mlp_bias", false, where);
  }
  const std::string act = gemma ? "silu" : j.value("hidden_act", std::string("silu"));  // Gemma's is hidden_activation
  if (act != "silu" && act != "swish")  // transformers' ACT2FN: swish is silu
    throw CheckpointError("hidden_act \"" + act + "\" is not supported (the Llama family uses silu)", where);
  if (get_int(j, "pretraining_tp", 1, where) != 1) throw CheckpointError("pretraining_tp other than 1 is not supported", where);
  c.bos_token_id = get_ids(j, "bos_token_id", where);
  c.eos_token_id = get_ids(j, "eos_token_id", where);
  c.pad_token_id = get_ids(j, "pad_token_id", where);
  if (gemma)  // Gemma3TextConfig's ids where the keys are absent (null stays none)
    for (auto [key, ids, id] : {std::tuple{"bos_token_id", &c.bos_token_id, 2}, {"eos_token_id", &c.eos_token_id, 1}, {"pad_token_id", &c.pad_token_id, 0}})
      if (!j.contains(key)) *ids = {id};
  if (classifier_config(j)) {
    ClassifierLabels labels = classifier_labels_from_hf(j, where);
    c.num_labels = labels.num_labels, c.labels = std::move(labels.names), c.problem_type = std::move(labels.problem_type);
  }
  try {
    complete_llama_config(c, "config.json");
  } catch (const RecipeError& e) {
    throw CheckpointError(e.message(), where);
  }
  return c;
}

std::string llama_config_json(const LlamaConfig& c) {
  const json rope = c.gemma ? json{{"full_attention", rope_json(c.rope)}, {"sliding_attention", rope_json(c.local_rope)}} : rope_json(c.rope);
  json j = {{"architectures", {llama_architecture(c.model_type, c.num_labels > 0)}},
            {"model_type", c.model_type},
            {"vocab_size", c.vocab_size},
            {"hidden_size", c.hidden_size},
            {"intermediate_size", c.intermediate_size},
            {"num_hidden_layers", c.num_hidden_layers},
            {"num_attention_heads", c.num_attention_heads},
            {"num_key_value_heads", c.num_key_value_heads},
            {"head_dim", c.head_dim},
            {"max_position_embeddings", c.max_position_embeddings},
            {"rms_norm_eps", c.rms_norm_eps},
            {"attention_dropout", c.attention_dropout},
            {"initializer_range", c.initializer_range},
            {"rope_parameters", rope},
            {"tie_word_embeddings", c.tie_word_embeddings},
            {"bos_token_id", ids_json(c.bos_token_id)},
            {"eos_token_id", ids_json(c.eos_token_id)},
            {"pad_token_id", ids_json(c.pad_token_id)},
            {"dtype", "float32"}};
  if (c.gemma) {
    j["hidden_activation"] = "gelu_pytorch_tanh";
    j["query_pre_attn_scalar"] = c.query_pre_attn_scalar;
    j["final_logit_softcapping"] = nullptr;
    j["attn_logit_softcapping"] = nullptr;
  } else {
    j["hidden_act"] = "silu";
  }
  if (c.model_type == "qwen2") {
    if (!c.qkv_bias || c.o_bias || c.mlp_bias) throw RecipeError("models.llama: qwen2 has q/k/v biases only (qkv_bias = true, o_bias = mlp_bias = false)");
  } else {
    if (c.qkv_bias != c.o_bias)
      throw RecipeError("models.llama: " + c.model_type + " has biases on all of q/k/v/o or none (attention_bias); model_type qwen2 has q/k/v only");
    j["attention_bias"] = c.qkv_bias;
    if (c.model_type == "llama") j["mlp_bias"] = c.mlp_bias;
    else if (c.mlp_bias) throw RecipeError("models.llama: " + c.model_type + " has no mlp_bias");
  }
  const bool sliding = c.sliding_window > 0;
  if (c.model_type == "mistral" || c.gemma) j["sliding_window"] = sliding ? json(c.sliding_window) : json(nullptr);
  else if (sliding || !c.sliding_layers.empty()) {
    if (!qwen(c.model_type)) throw RecipeError("models.llama: sliding_window needs model_type mistral, qwen2, qwen3 or gemma3_text");
    j["use_sliding_window"] = true;
    j["sliding_window"] = c.sliding_window;
  }
  if (c.num_labels > 0) add_classifier_labels(j, {c.num_labels, c.labels, c.problem_type});
  if (!c.sliding_layers.empty() || c.gemma) {  // Gemma 3's always: transformers would otherwise derive them
    json types = json::array();
    for (int64_t i = 0; i < c.num_hidden_layers; ++i)
      types.push_back(c.sliding_layers.empty() || c.sliding_layers[static_cast<size_t>(i)] ? "sliding_attention" : "full_attention");
    j["layer_types"] = types;
  }
  return j.dump(2);
}

}  // namespace runner::models
