// Inside runtime/models (the models' own code includes it; kernels' types stay out of the
// layer's public headers): a Linear layer's weights with its LoRA branch (lora.h), for a
// fused node that applies both (kernels/swiglu_linear.h, from Llama's MLP).
#pragma once
#include <optional>

#include "runtime/kernels/swiglu_linear.h"
#include "runtime/models/layers.h"

namespace runner::models {

// nullopt where the layer's own forward must run: forward hooks on it or its branch (FSDP /
// ZeRO-3 units), checkpointing of the layer alone, the branch's dropout in training, or an
// adapter that is not a LoRA branch.
std::optional<kernels::SwigluLinearWeights> fusable_linear(const Linear& layer);

}  // namespace runner::models
