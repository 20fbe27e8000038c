// Loading weights from disk: Hugging Face GPT-2 and Llama-family (llama, qwen2, qwen3, mistral)
// folders, and safetensors files into any Module.
#pragma once
#include <optional>
#include <string>

#include "runtime/models/module.h"

namespace runner::models {

// A GPT-2 model (make_gpt) from a Hugging Face folder: config.json with model_type "gpt2"
// (n_embd, n_layer, n_head, vocab_size, n_positions or n_ctx, layer_norm_epsilon,
// resid_pdrop, attn_pdrop, embd_pdrop) and model.safetensors, or a sharded
// model.safetensors.index.json. Hub-style names without the "transformer." prefix, a
// missing (tied) lm_head.weight and the attn.bias / attn.masked_bias buffers are accepted.
// model_type llama / qwen2 / mistral: a make_llama model (llama_config.h reads the config).
// Anything else, or a quantization_config, is a CheckpointError naming the folder. The model
// is built without memory for its weights and checked against the files' headers (names, shapes); `deferred` leaves
// the values in the files until the run loads them (parameter_store.h: ZeRO-3 ranks read
// their shards only), else they are loaded now.
// `dtype`: "auto" (transformers v5's default: config.json's dtype, or v4's torch_dtype, else
// the files' first floating-point tensor's), or "float32", "bfloat16", "float16", "float64".
// A peft adapter folder loads its base model so, with fp32 adapters on a bf16/fp16 base.
// model_type bert: a BertForSequenceClassification (make_encoder_classifier); a pretrained
// BERT's missing classifier (and pooler) is newly initialised, as transformers does, and
// `num_labels` > 0 sizes it (transformers' from_pretrained(..., num_labels=n)), `labels` names
// the classes in id order (config.id2label; their count is num_labels when that is 0), `task`
// "token_classification" / "sequence_classification" picks the head (AutoModelForTokenClassification
// / ...ForSequenceClassification; "": the config's architectures, else sequence classification).
// A Llama-family or GPT-2 folder is a *ForSequenceClassification (LlamaForSequenceClassification,
// Qwen2..., Mistral..., GPT2...) when its architectures say so, or as `num_labels` > 0 / task
// "sequence_classification" make it one (a causal LM's folder then gets a new score head,
// num_labels 2 unless given). `pad_token_id` replaces the config's (GPT-2, Llama family): a
// classifier finds each row's end by it (TRL's RewardTrainer sets the tokenizer's on the model's config).
ModulePtr from_pretrained(const std::string& dir, bool deferred = false, const std::string& dtype = "auto", int64_t num_labels = 0,
                          const std::vector<std::string>& labels = {}, const std::string& task = "",
                          std::optional<int64_t> pad_token_id = std::nullopt);

// A new model equal to `model` (GPT-2 or Llama family: built from its config, then its weights
// copied, in their dtype and on their device), in eval mode: DPO's frozen reference, as TRL's
// create_reference_model deep-copies the policy. `model`'s weights still in their files are
// loaded first. A LoRA model's copy is a plain model: its adapters merged into the weights
// (`with_adapters`), or its base alone. RecipeError for any other model.
ModulePtr copy_model(Module& model, bool with_adapters = true);

// Loads a safetensors file into `model` (values copied in place, converted to the model's
// dtypes). A key missing from the file whose tensor is tied to a key that is present (GPT-2's
// lm_head.weight) counts as loaded. Shape mismatches are always a CheckpointError listing
// every mismatched key; missing / unexpected keys are errors when strict, else reported.
Module::LoadReport load_weights(Module& model, const std::string& file, bool strict = true);

}  // namespace runner::models
