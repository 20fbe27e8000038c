// Inside runtime/models (the models' own code includes it; kernels' types stay out of the
// layer's public headers): a Linear layer's weights with its LoRA branch (lora.h), for fused
// nodes that apply both (kernels/swiglu_linear.h, kernels/rms_norm_linear.h, from Llama's blocks).
#pragma once
#include <optional>

#include "runtime/kernels/linear_weights.h"
#include "runtime/models/layers.h"

namespace runner::models {

// nullopt where the layer's own forward must run: forward hooks on it or its branch (FSDP /
// ZeRO-3 units), checkpointing of the layer alone, the branch's dropout in training, or an
// adapter that is not a LoRA branch.
std::optional<kernels::LinearWeights> fusable_linear(const Linear& layer);

// The layer's output `out` (its base's) plus the branch given the branch's down-projection
// (…, r), as models.lora's adapter adds it: one addmm under autocast, else peft's
// out + (down · Bᵀ) · scaling. nullopt where the adapter would cast (dtypes that differ
// without autocast): the layer's own forward then.
std::optional<at::Tensor> add_lora_branch(const at::Tensor& out, const at::Tensor& down, const kernels::LinearWeights& w);

}  // namespace runner::models
