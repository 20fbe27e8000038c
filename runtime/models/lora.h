// LoRA (Hu et al. 2021), as the peft package does it: chosen linear layers get a trainable
// low-rank branch y = W·x + b + (α/r)·B·A·dropout(x) (A: r×in, kaiming-uniform; B: out×r,
// zeros, so training starts from the base model) and every other parameter is frozen; an
// embedding gets peft's lora_embedding_A / lora_embedding_B branch instead. The
// branch's parameters are children of the adapted layer, so their names are peft's saved
// names without the "base_model.model." prefix: "model.layers.0.self_attn.q_proj.lora_A.weight".
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/models/module.h"

namespace runner::models {

struct LoraConfig {
  int64_t r = 8;
  double alpha = 8.0;    // peft lora_alpha
  double dropout = 0.0;  // peft lora_dropout, on the branch's input
  // peft semantics: a list matches a module whose name is an entry or ends with "." + entry;
  // a single string is a regular expression the whole name must match; "all-linear" is every
  // linear layer but the output head. Empty: the model type's peft default (q_proj, v_proj
  // for the Llama family, c_attn for GPT-2).
  std::vector<std::string> target_modules;
  std::string target_regex;
  // peft's exclude_modules (peft >= 0.14): layers left out of the targets, matched the same way
  // (a list of names or name suffixes, or one regular expression the whole name must match).
  std::vector<std::string> exclude_modules;
  std::string exclude_regex;
  bool use_rslora = false;         // scaling α/√r instead of α/r
  bool init_lora_weights = true;   // false: B random too (the branch is not a no-op at start)
  bool gaussian_init = false;      // peft's init_lora_weights = "gaussian": A ~ N(0, 1/r), B zero
  // peft's modules_to_save: whole modules trained and saved beside the adapters (a list of
  // names or name suffixes); task_type "SEQ_CLS" and "TOKEN_CLS" add "classifier" and "score",
  // "QUESTION_ANS" adds "qa_outputs", as peft does.
  std::vector<std::string> modules_to_save;
  std::vector<std::string> saved;  // the matched modules' names, filled by apply_lora
  std::string task_type = "CAUSAL_LM";
  std::string base_model_name_or_path;
  bool fan_in_fan_out = false;     // written as peft computes it: true for GPT-2's Conv1D layers
  std::vector<std::string> adapted;  // the adapted layers' names, filled by apply_lora
  // Loaded from an adapter folder (a pretrained adapter, not a new one): DPO's reference is then
  // the model as loaded, as TRL copies such an adapter into a "ref" adapter.
  bool pretrained_adapters = false;

  double scaling() const;
};

// peft's init_lora_weights given as a string ("gaussian"; true / false as "true" / "false")
// into `c`. The methods that rewrite the base weights or need data (pissa, olora, loftq,
// eva, corda, orthogonal) are a RecipeError naming them.
void set_lora_init(LoraConfig& c, const std::string& value);

// Adapts `model` in place and freezes its other parameters; records the config on the root
// (Module::lora). RecipeError naming the problem: no layer matched, a matched layer that is not
// linear, an adapted model, r < 1.
void apply_lora(Module& model, LoraConfig config);

// The adapter weights under peft's saved names ("base_model.model.<name>"), for
// adapter_model.safetensors; and loading them back (strict about the adapters: every
// adapter key must be present; a key that is not an adapter of this model is unexpected).
NamedTensorList adapter_state_dict(const Module& model);
Module::LoadReport load_adapter_state_dict(Module& model, const NamedTensorList& tensors);
Module::LoadPlan plan_adapter_load(Module& model, const NamedTensorList& tensors);  // nothing copied yet

// An adapter tensor's name: a linear layer's lora_A / lora_B modules, an embedding's
// lora_embedding_A / lora_embedding_B parameters (peft's names for both).
bool is_adapter_name(const std::string& name);

// peft's disable_adapter(): while one is alive on this thread, every LoRA branch is left out
// (the layers compute the base model; DPO's reference forward). modules_to_save are trained in
// place, so they stay as trained.
class AdaptersDisabled {
 public:
  AdaptersDisabled();
  ~AdaptersDisabled();
  AdaptersDisabled(const AdaptersDisabled&) = delete;
  AdaptersDisabled& operator=(const AdaptersDisabled&) = delete;
};
bool adapters_disabled();

// The base model's state dict with each adapter merged into its layer's weight
// (W + (α/r)·B·A) and the adapter keys left out: what peft's merge_and_unload saves.
NamedTensorList merged_state_dict(const Module& model);

// adapter_config.json, as peft writes it; and read back (CheckpointError naming `file` and
// the key for settings runner does not implement: DoRA, rank patterns, biases...).
nlohmann::json adapter_config_json(const LoraConfig& config);
LoraConfig lora_config_from_json(const nlohmann::json& j, const std::string& file);

}  // namespace runner::models
