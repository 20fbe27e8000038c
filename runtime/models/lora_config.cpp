// LoraConfig's side of LoRA: the scaling, peft's init_lora_weights values, and
// adapter_config.json as peft writes and reads it (lora.h).
#include <cmath>
#include <set>

#include "runtime/core/errors.h"
#include "runtime/models/lora.h"

namespace runner::models {

void set_lora_init(LoraConfig& c, const std::string& value) {
  if (value == "true" || value == "false") {
    c.init_lora_weights = value == "true", c.gaussian_init = false;
  } else if (value == "gaussian") {
    c.init_lora_weights = true, c.gaussian_init = true;
  } else {
    const bool known = value.rfind("pissa", 0) == 0 || value == "olora" || value == "loftq" || value == "eva" || value == "corda" ||
                       value == "orthogonal";
    throw RecipeError("init_lora_weights = \"" + value + "\" " +
                      (known ? std::string("is not implemented (it rewrites the base weights or needs data)")
                             : std::string("is not one of peft's initialisations")) +
                      "; runner has true (A random, B zero), false (both random) and \"gaussian\"");
  }
}

double LoraConfig::scaling() const { return use_rslora ? alpha / std::sqrt(static_cast<double>(r)) : alpha / static_cast<double>(r); }

nlohmann::json adapter_config_json(const LoraConfig& c) {
  nlohmann::json targets = c.target_regex.empty() ? nlohmann::json(c.target_modules) : nlohmann::json(c.target_regex);
  if (c.target_modules.size() == 1 && c.target_modules[0] == "all-linear") {
    // peft resolves "all-linear" before saving: the adapted layers' own names (q_proj, ...),
    // which is what it matches when it loads the adapters.
    std::set<std::string> names;
    for (const auto& full : c.adapted) names.insert(full.substr(full.rfind('.') + 1));
    targets = std::vector<std::string>(names.begin(), names.end());
  }
  return {{"peft_type", "LORA"},
          {"task_type", c.task_type.empty() ? nlohmann::json() : nlohmann::json(c.task_type)},
          {"base_model_name_or_path", c.base_model_name_or_path.empty() ? nlohmann::json() : nlohmann::json(c.base_model_name_or_path)},
          {"r", c.r},
          {"lora_alpha", c.alpha},
          {"lora_dropout", c.dropout},
          {"target_modules", targets},
          {"exclude_modules", c.exclude_regex.empty() ? (c.exclude_modules.empty() ? nlohmann::json() : nlohmann::json(c.exclude_modules))
                                                      : nlohmann::json(c.exclude_regex)},
          {"bias", "none"},
          {"fan_in_fan_out", c.fan_in_fan_out},
          {"use_rslora", c.use_rslora},
          {"use_dora", false},
          {"init_lora_weights", c.gaussian_init ? nlohmann::json("gaussian") : nlohmann::json(c.init_lora_weights)},
          {"modules_to_save", c.modules_to_save.empty() ? nlohmann::json() : nlohmann::json(c.modules_to_save)},
          {"layers_to_transform", nullptr},
          {"layers_pattern", nullptr},
          {"rank_pattern", nlohmann::json::object()},
          {"alpha_pattern", nlohmann::json::object()},
          {"inference_mode", true},
          {"revision", nullptr}};
}

LoraConfig lora_config_from_json(const nlohmann::json& j, const std::string& file) {
  if (!j.is_object()) throw CheckpointError("not a JSON object", file);
  auto fail = [&](const std::string& key, const std::string& why) { throw CheckpointError("\"" + key + "\": " + why, file); };
  if (j.value("peft_type", std::string()) != "LORA") fail("peft_type", "runner loads LORA adapters, got " + j.value("peft_type", nlohmann::json()).dump());
  LoraConfig c;
  try {
    c.r = j.value("r", c.r);
    c.alpha = j.value("lora_alpha", c.alpha);
    c.dropout = j.value("lora_dropout", c.dropout);
    c.use_rslora = j.value("use_rslora", false);
    c.fan_in_fan_out = j.value("fan_in_fan_out", false);
    if (j.contains("init_lora_weights")) {
      const nlohmann::json& v = j["init_lora_weights"];
      if (!v.is_boolean() && !v.is_string()) fail("init_lora_weights", "expected true, false or a method name");
      // How trained adapters were initialised does not change how they load, unless the
      // method rewrote the base weights too (PiSSA, OLoRA, CorDA subtract the initial adapter
      // from them; LoftQ quantizes them): then the folder's base is not the base they fit.
      const std::string init = v.is_boolean() ? (v.get<bool>() ? "true" : "false") : v.get<std::string>();
      if (init == "eva" || init == "orthogonal") c.init_lora_weights = true;
      else if (init.rfind("pissa", 0) == 0 || init == "olora" || init == "loftq" || init == "corda")
        fail("init_lora_weights", "\"" + init + "\" adapters were trained on a rewritten base model, which runner cannot rebuild");
      else {
        try {
          set_lora_init(c, init);
        } catch (const RecipeError& e) {
          fail("init_lora_weights", e.message());
        }
      }
    }
    if (j.contains("task_type") && j["task_type"].is_string()) c.task_type = j["task_type"];
    if (j.contains("base_model_name_or_path") && j["base_model_name_or_path"].is_string()) c.base_model_name_or_path = j["base_model_name_or_path"];
    const nlohmann::json& t = j.value("target_modules", nlohmann::json());
    if (t.is_string()) c.target_regex = t.get<std::string>();
    else if (t.is_array()) c.target_modules = t.get<std::vector<std::string>>();
    else fail("target_modules", "expected a list of names or a regular expression");
    const nlohmann::json& e = j.value("exclude_modules", nlohmann::json());
    if (e.is_string()) c.exclude_regex = e.get<std::string>();
    else if (e.is_array()) c.exclude_modules = e.get<std::vector<std::string>>();
    else if (!e.is_null()) fail("exclude_modules", "expected a list of names or a regular expression");
  } catch (const nlohmann::json::exception& e) {
    throw CheckpointError("a key has the wrong type (" + std::string(e.what()) + ")", file);
  }
  if (c.r < 1) fail("r", "must be >= 1");
  if (j.value("bias", std::string("none")) != "none") fail("bias", "only \"none\" is implemented");
  if (j.value("use_dora", false)) fail("use_dora", "DoRA is not implemented");
  // Settings that add trainable tensors runner does not have: named, not left to a missing key.
  if (j.value("lora_bias", false)) fail("lora_bias", "a bias on lora_B is not implemented");
  for (const char* key : {"trainable_token_indices", "layer_replication"})
    if (j.contains(key) && !j[key].is_null() && !j[key].empty()) fail(key, "not implemented (runner reads null)");
  if (const nlohmann::json& m = j.value("modules_to_save", nlohmann::json()); m.is_array()) {
    for (const auto& name : m)
      if (name.is_string()) c.modules_to_save.push_back(name.get<std::string>());
      else fail("modules_to_save", "expected a list of module names");
  } else if (!m.is_null()) {
    fail("modules_to_save", "expected a list of module names");
  }
  for (const char* key : {"layers_to_transform", "layers_pattern"})  // an empty list is none, as in peft
    if (j.contains(key) && !j[key].is_null() && !(j[key].is_array() && j[key].empty())) fail(key, "not implemented (runner reads null)");
  for (const char* key : {"rank_pattern", "alpha_pattern"})
    if (j.contains(key) && !j[key].is_null() && !j[key].empty()) fail(key, "per-layer ranks are not implemented");
  return c;
}

}  // namespace runner::models
