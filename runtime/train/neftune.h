// NEFTune (HF TrainingArguments.neftune_noise_alpha; Jain et al., "NEFTune: Noisy Embeddings
// Improve Instruction Finetuning"): during training, uniform noise in
// [-alpha / sqrt(L * d), alpha / sqrt(L * d)] is added to the input embeddings' output
// (L tokens of width d), as HF's neftune_post_forward_hook does on
// model.get_input_embeddings(); in eval mode the embeddings are untouched. Like HF's Trainer,
// train() turns it on for its duration and off again after.
#pragma once
#include <optional>

#include "runtime/models/module.h"

namespace runner::train {

class NeftuneNoise {
 public:
  // Does nothing without alpha or with alpha 0 (HF's noise is then 0). ArgumentError for a
  // negative alpha or a model without input embeddings runner knows (a recipe's own model:
  // HF's get_input_embeddings).
  NeftuneNoise(std::optional<double> alpha, models::Module* model);
  ~NeftuneNoise();
  NeftuneNoise(const NeftuneNoise&) = delete;
  NeftuneNoise& operator=(const NeftuneNoise&) = delete;

 private:
  models::Module* embeddings_ = nullptr;
};

}  // namespace runner::train
