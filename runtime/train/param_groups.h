// HF's two optimizer parameter groups: weight decay on everything except biases and
// normalisation weights.
#pragma once
#include <string>
#include <vector>

#include "runtime/models/module.h"

namespace runner::train {

// For each trainable parameter of `model` (named_parameters order): true when it gets no
// weight decay: it lives in a LayerNorm, or its lower-cased name contains "bias",
// "layernorm" or "rmsnorm", or has a "norm" path component or a "_norm" suffix component.
std::vector<bool> no_decay_mask(const models::Module& model, const models::NamedTensorList& params);

}  // namespace runner::train
