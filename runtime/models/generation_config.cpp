// Where generation's defaults come from, once for runner generate, model:generate and
// predict_with_generate: config.json's token ids, then generation_config.json, as transformers'
// GenerationConfig reads them.
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "runtime/core/errors.h"
#include "runtime/models/generation.h"
#include "runtime/models/lora.h"

namespace runner::models {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Keys that cannot change what is generated (bookkeeping, output formats, caching).
const std::set<std::string> kNoEffect = {
    "transformers_version", "_from_model_config", "bos_token_id", "decoder_start_token_id", "use_cache", "cache_implementation",
    "cache_config", "return_dict_in_generate", "output_attentions", "output_hidden_states", "output_scores", "output_logits",
    "trust_remote_code", "is_assistant", "compile_config", "disable_compile", "prefill_chunk_size"};

// Logits processors and modes runner does not implement, with transformers' defaults: a file
// that sets one to anything else is refused, since the text would differ from transformers'.
const std::map<std::string, json> kUnimplemented = {
    {"min_length", 0}, {"min_new_tokens", nullptr}, {"no_repeat_ngram_size", 0}, {"bad_words_ids", nullptr},
    {"suppress_tokens", nullptr}, {"begin_suppress_tokens", nullptr}, {"forced_bos_token_id", nullptr},
    {"forced_eos_token_id", nullptr}, {"typical_p", 1.0}, {"epsilon_cutoff", 0.0}, {"eta_cutoff", 0.0}, {"min_p", nullptr},
    {"diversity_penalty", 0.0}, {"num_beam_groups", 1}, {"encoder_repetition_penalty", 1.0}, {"renormalize_logits", false},
    {"num_return_sequences", 1}, {"exponential_decay_length_penalty", nullptr}, {"sequence_bias", nullptr},
    {"guidance_scale", nullptr}, {"penalty_alpha", nullptr}, {"constraints", nullptr}, {"force_words_ids", nullptr},
    {"encoder_no_repeat_ngram_size", 0}, {"max_time", nullptr}, {"stop_strings", nullptr}, {"watermarking_config", nullptr},
    {"assistant_model", nullptr}, {"prompt_lookup_num_tokens", nullptr}, {"num_assistant_tokens", nullptr},
    {"token_healing", false}, {"dola_layers", nullptr}, {"top_h", nullptr}};

bool same(const json& a, const json& b) { return a == b || (a.is_number() && b.is_number() && a.get<double>() == b.get<double>()); }

}  // namespace

std::vector<int64_t> config_token_ids(const json& config, const char* key) {
  auto it = config.find(key);
  if (it == config.end() || it->is_null()) return {};
  if (it->is_number_integer()) return {it->get<int64_t>()};
  std::vector<int64_t> ids;
  if (it->is_array())
    for (const auto& v : *it)
      if (v.is_number_integer()) ids.push_back(v.get<int64_t>());
  return ids;
}

void apply_generation_config(const json& c, const std::string& where, GenerationConfig& g) {
  if (!c.is_object()) throw CheckpointError("generation_config.json is not a JSON object", where);
  for (auto it = c.begin(); it != c.end(); ++it) {
    const std::string& key = it.key();
    const json& v = it.value();
    try {
      if (key == "eos_token_id") g.eos_token_id = config_token_ids(c, "eos_token_id");
      else if (key == "pad_token_id") g.pad_token_id = v.is_null() ? -1 : config_token_ids(c, "pad_token_id").at(0);
      else if (key == "do_sample") g.do_sample = v.get<bool>();
      else if (key == "temperature") g.temperature = v.is_null() ? 1.0 : v.get<double>();
      else if (key == "top_k") g.top_k = v.is_null() ? 50 : v.get<int64_t>();  // transformers 5: null is the default, 50
      else if (key == "top_p") g.top_p = v.is_null() ? 1.0 : v.get<double>();
      else if (key == "num_beams") g.num_beams = v.get<int64_t>();
      else if (key == "length_penalty") g.length_penalty = v.get<double>();
      else if (key == "repetition_penalty") g.repetition_penalty = v.is_null() ? 1.0 : v.get<double>();
      else if (key == "early_stopping") g.early_stopping = v.is_boolean() ? (v.get<bool>() ? "true" : "false") : v.get<std::string>();
      else if (key == "max_new_tokens") g.max_new_tokens = v.is_null() ? -1 : v.get<int64_t>();  // wins over max_length (HF)
      else if (key == "max_length") g.max_length = v.is_null() ? std::nullopt : std::optional<int64_t>(v.get<int64_t>());
      else if (kNoEffect.count(key)) continue;
      else if (auto d = kUnimplemented.find(key); d != kUnimplemented.end()) {
        if (!v.is_null() && !same(v, d->second))
          throw CheckpointError("\"" + key + "\": " + v.dump() + " is not implemented by runner's generation (transformers' default " +
                                    d->second.dump() + " is); remove it to generate without it",
                                where);
      } else if (!v.is_null() && v != false) {
        throw CheckpointError("\"" + key + "\": unknown generation setting (runner would ignore it)", where);
      }
    } catch (const json::exception& e) {
      throw CheckpointError("\"" + key + "\": " + v.dump() + " has the wrong type (" + e.what() + ")", where);
    } catch (const std::out_of_range&) {
      throw CheckpointError("\"" + key + "\": " + v.dump() + " is not a token id", where);
    }
  }
}

json load_generation_config(const std::string& path) {
  fs::path file = path;
  if (fs::is_directory(file)) file /= "generation_config.json";
  if (!fs::is_regular_file(file))
    throw ArgumentError("args.generation_config: " + (fs::exists(path) ? file.string() + " does not exist" : "no such file or folder \"" + path + "\"") +
                        " (a folder holding generation_config.json, or a JSON file; Hub model ids are not fetched)");
  std::ifstream in(file);
  const json c = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (c.is_discarded()) throw CheckpointError("generation_config.json is not valid JSON", file.string());
  GenerationConfig check;
  apply_generation_config(c, file.string(), check);  // refuses what generation would refuse, now
  return c;
}

GenerationConfig generation_defaults(const Module& model) {
  GenerationConfig g;
  const std::string& replaced = model.generation_config_json();
  if (const std::string text = model.hf_config_json(); !text.empty()) {
    const json config = json::parse(text);
    // A replaced generation config is the whole of it, as HF's model.generation_config: the
    // ids come from it, not from config.json.
    if (replaced.empty()) {
      g.eos_token_id = config_token_ids(config, "eos_token_id");
      if (const auto pad = config_token_ids(config, "pad_token_id"); !pad.empty()) g.pad_token_id = pad[0];
    }
    for (const char* key : {"max_position_embeddings", "n_positions"})  // GPT-2's name for it
      if (auto it = config.find(key); it != config.end() && it->is_number_integer()) {
        g.max_position_embeddings = it->get<int64_t>();
        break;
      }
  }
  if (!replaced.empty()) {
    apply_generation_config(json::parse(replaced), "args.generation_config", g);
    return g;
  }
  // The folder the model came from, else (LoRA adapters) its base model's.
  std::vector<std::string> folders{model.name_or_path()};
  if (model.lora()) folders.push_back(model.lora()->base_model_name_or_path);
  for (const auto& folder : folders) {
    if (folder.empty()) continue;
    const fs::path path = fs::path(folder) / "generation_config.json";
    if (!fs::exists(path)) continue;
    std::ifstream in(path);
    const json c = json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (c.is_discarded()) throw CheckpointError("generation_config.json is not valid JSON", path.string());
    apply_generation_config(c, path.string(), g);
    break;
  }
  return g;
}

json generation_config_to_save(const Module& model, const json& config) {
  if (model.lora() || !config.is_object()) return nullptr;
  // transformers' can_generate(): its causal-LM classes.
  bool causal_lm = false;
  for (const auto& a : config.value("architectures", json::array()))
    if (a.is_string() && (a.get<std::string>().find("CausalLM") != std::string::npos || a.get<std::string>().find("LMHeadModel") != std::string::npos))
      causal_lm = true;
  if (!causal_lm) return nullptr;
  if (!model.generation_config_json().empty()) return json::parse(model.generation_config_json());  // HF saves model.generation_config
  if (!model.name_or_path().empty()) {
    const fs::path path = fs::path(model.name_or_path()) / "generation_config.json";
    if (fs::exists(path)) {
      std::ifstream in(path);
      const json c = json::parse(in, nullptr, /*allow_exceptions=*/false);
      if (c.is_discarded() || !c.is_object()) throw CheckpointError("generation_config.json is not a JSON object", path.string());
      return c;
    }
  }
  json c = {{"_from_model_config", true}};
  for (const char* key : {"bos_token_id", "eos_token_id", "pad_token_id"})
    if (auto it = config.find(key); it != config.end() && !it->is_null()) c[key] = *it;
  return c;
}

at::Tensor penalize_repeats(const at::Tensor& scores, const at::Tensor& ids, double penalty) {
  if (penalty == 1.0 || ids.size(1) == 0) return scores;
  const at::Tensor seen = scores.gather(1, ids);
  return scores.scatter(1, ids, at::where(seen < 0, seen * penalty, seen / penalty));
}

}  // namespace runner::models
