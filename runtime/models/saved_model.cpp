#include "runtime/models/saved_model.h"

#include <filesystem>
#include <fstream>

#include "runtime/core/errors.h"
#include "runtime/io/safetensors.h"
#include "runtime/models/generation.h"
#include "runtime/models/lora.h"
#include "runtime/models/pretrained.h"

namespace runner::models {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> tokenizer_files(const std::string& source) {
  std::vector<std::string> out;
  if (source.empty()) return out;
  for (const auto& f : tokenizer_file_names())
    if (fs::is_regular_file(fs::path(source) / f)) out.push_back((fs::path(source) / f).string());
  return out;
}

}  // namespace

const std::vector<std::string>& tokenizer_file_names() {
  static const std::vector<std::string> names = {"tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "chat_template.jinja",
                                                 "vocab.json", "merges.txt", "tokenizer.model", "vocab.txt",
                                                 "spiece.model", "sentencepiece.bpe.model"};  // BERT's, T5's and ALBERT's, XLM-R's
  return names;
}

SavedModel saved_model(const Module& model) {
  SavedModel s;
  s.tokenizer_files = tokenizer_files(model.lora() ? model.lora()->base_model_name_or_path : model.name_or_path());
  if (const auto& lora = model.lora()) {
    s.weights_file = "adapter_model.safetensors";
    s.weights = adapter_state_dict(model);
    s.config_file = "adapter_config.json";
    s.config = adapter_config_json(*lora);
    return s;
  }
  s.weights_file = "model.safetensors";
  s.weights = model.unique_state_dict();  // no second copy of a tied embedding (HF's files have none)
  s.config_file = "config.json";
  if (const std::string config = model.hf_config_json(); !config.empty()) s.config = nlohmann::json::parse(config);
  s.generation_config = generation_config_to_save(model, s.config);
  return s;
}

std::string weights_file_name(const Module& model) { return model.lora() ? "adapter_model.safetensors" : "model.safetensors"; }

std::string missing_weights(const Module& model, const std::string& dir) {
  if (fs::exists(dir + "/" + weights_file_name(model))) return "";
  if (model.lora() && fs::exists(dir + "/model.safetensors"))
    return "it holds full model weights (model.safetensors), not LoRA adapters: a run without models.lora saved it";
  if (!model.lora() && fs::exists(dir + "/adapter_model.safetensors"))
    return "it holds LoRA adapters (adapter_model.safetensors): apply the same models.lora to the model to load it";
  return "no " + weights_file_name(model);
}

Module::LoadPlan plan_saved_weights(Module& model, const std::string& dir) {
  const std::string file = dir + "/" + weights_file_name(model);
  if (const std::string problem = missing_weights(model, dir); !problem.empty()) throw CheckpointError(problem, dir);
  const io::NamedTensors tensors = io::load_safetensors(file);
  if (model.lora()) return plan_adapter_load(model, tensors);
  return model.plan_load(tensors, /*strict=*/false);
}

Module::LoadReport load_saved_weights(Module& model, const std::string& dir) {
  return plan_saved_weights(model, dir).copy_all();
}

ModulePtr load_adapter_folder(const std::string& dir, const std::string& base_dir, bool deferred, const std::string& dtype,
                              std::optional<int64_t> pad_token_id) {
  const std::string config_file = dir + "/adapter_config.json";
  std::ifstream in(config_file);
  if (!in) throw CheckpointError("cannot read (a peft adapter folder needs adapter_config.json)", config_file);
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) throw CheckpointError("not valid JSON", config_file);
  LoraConfig config = lora_config_from_json(j, config_file);
  std::string base = base_dir;
  if (base.empty()) {
    if (config.base_model_name_or_path.empty())
      throw CheckpointError("\"base_model_name_or_path\" is empty: name the base model folder (--base_model)", config_file);
    base = config.base_model_name_or_path;
    if (!fs::is_directory(base) && fs::path(base).is_relative() && fs::is_directory(fs::path(dir) / base)) base = (fs::path(dir) / base).string();
    if (!fs::is_directory(base))
      throw CheckpointError("the base model \"" + config.base_model_name_or_path +
                                "\" (base_model_name_or_path) is not a folder here; runner does not download: name a local copy (--base_model)",
                            config_file);
  }
  const std::string weights = dir + "/adapter_model.safetensors";
  if (!fs::exists(weights)) throw CheckpointError("no adapter_model.safetensors", dir);
  // A sequence classifier's head saved beside the adapters (modules_to_save) sizes the base's
  // head, as the script that trained it loaded the base with num_labels.
  int64_t num_labels = 0;
  const bool tokens = config.task_type == "TOKEN_CLS";
  if (config.task_type == "SEQ_CLS" || tokens) {
    const io::SafetensorsFile file(weights);
    for (const auto& name : file.names())
      if (name == "base_model.model.classifier.weight" || name == "base_model.model.classifier.out_proj.weight" ||
          name == "base_model.model.score.weight")  // BERT's, RoBERTa's, the Llama family's
        num_labels = file.shape(name).at(0);
  }
  ModulePtr model = from_pretrained(base, deferred, dtype, num_labels, {},
                                    tokens                             ? "token_classification"
                                    : config.task_type == "SEQ_CLS"      ? "sequence_classification"
                                    : config.task_type == "QUESTION_ANS" ? "question_answering"
                                                                         : "",
                                    pad_token_id);
  const bool regex = !config.target_regex.empty();
  config.base_model_name_or_path = base;
  config.fan_in_fan_out = false;  // recomputed from the layers
  try {
    config.pretrained_adapters = true;
    apply_lora(*model, config);
  } catch (const RecipeError& e) {
    throw CheckpointError(e.message() + (regex ? "" : " (adapter_config.json's target_modules)"), config_file);
  }
  const auto report = load_adapter_state_dict(*model, io::load_safetensors(weights));
  if (!report.missing.empty() || !report.unexpected.empty())
    throw CheckpointError("does not fit the base model " + base + " with this adapter_config.json (" +
                              (report.missing.empty() ? "" : "missing " + report.missing.front()) +
                              (report.unexpected.empty() ? "" : std::string(report.missing.empty() ? "" : ", ") + "unexpected " + report.unexpected.front()) + ")",
                          weights);
  model->eval();
  return model;
}

}  // namespace runner::models
