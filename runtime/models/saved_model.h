// What save_pretrained writes for a model, in the Trainer's output and in every checkpoint:
// model.safetensors + config.json, or, for a LoRA model (lora.h), only the adapters as peft
// writes them: adapter_model.safetensors + adapter_config.json (the base model stays where
// it was read from). Loading reads back whichever the model writes.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/models/module.h"

namespace runner::models {

struct SavedModel {
  std::string weights_file;  // "model.safetensors" | "adapter_model.safetensors"
  NamedTensorList weights;   // views of the live tensors: clone to keep them
  std::string config_file;   // "config.json" | "adapter_config.json"
  nlohmann::json config;     // null: the model has no HF config
  nlohmann::json generation_config;  // generation_config.json (null: none, as for LoRA adapters)
  // The tokenizer files of the folder the model (a LoRA model's base) was read from, copied
  // beside the weights: what HF's Trainer saves from the processing_class a fine-tuning
  // script loads from that folder, so `runner generate` and transformers find them there.
  std::vector<std::string> tokenizer_files;
};

SavedModel saved_model(const Module& model);
// The files of a model folder that make its tokenizer (tokenizer.json, tokenizer_config.json, ...).
const std::vector<std::string>& tokenizer_file_names();
std::string weights_file_name(const Module& model);

// Loads the weights file of `dir` that saved_model writes for this model (HF loads a
// checkpoint with strict=False: the caller reports missing/unexpected keys). CheckpointError
// when the file is absent, naming it (an adapter checkpoint for a model without LoRA, or
// the reverse, says so).
Module::LoadReport load_saved_weights(Module& model, const std::string& dir);
// The same, planned (the file read, names and shapes checked) but not yet copied.
Module::LoadPlan plan_saved_weights(Module& model, const std::string& dir);
// Why `dir` holds no weights file for this model ("" when it does).
std::string missing_weights(const Module& model, const std::string& dir);

// A peft adapter folder (adapter_config.json + adapter_model.safetensors): its base model
// from `base_dir`, else the config's base_model_name_or_path (as given, else relative to the
// adapter folder), adapted and loaded strictly. CheckpointError naming the file otherwise.
// `pad_token_id` is given to the base (pretrained.h): a reward model's adapters are saved
// without the base's config, so the pad id its score reads comes with the load.
ModulePtr load_adapter_folder(const std::string& dir, const std::string& base_dir = "", bool deferred = false,
                              const std::string& dtype = "auto",  // the base model's (pretrained.h)
                              std::optional<int64_t> pad_token_id = std::nullopt);

}  // namespace runner::models
