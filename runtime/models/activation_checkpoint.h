// Activation (gradient) checkpointing, HF's gradient_checkpointing: a module's forward runs
// without keeping its intermediate activations, and backward runs it again, with gradients,
// to get them. Memory for activations drops to the module boundaries at the price of a
// second forward. As torch.utils.checkpoint (the reentrant form): the recompute sees the
// random-number state the first forward saw (dropout masks match), and the generator is put
// back afterwards, so a checkpointed run draws the same random numbers as one without.
#pragma once
#include <functional>
#include <vector>

#include <ATen/core/Tensor.h>

#include "runtime/models/activation_offload.h"
#include "runtime/models/module.h"

namespace runner::models {

using CheckpointBody = std::function<at::Tensor(const std::vector<at::Tensor>&)>;

// body(inputs) under checkpointing: differentiable with respect to the inputs that require
// gradients and to every parameter body uses (their .grad is accumulated during backward,
// as the reentrant torch.utils.checkpoint does). `offload` says where the inputs wait for
// backward (activation_offload.h).
at::Tensor checkpointed(const CheckpointBody& body, const std::vector<at::Tensor>& inputs,
                        ActivationOffload offload = ActivationOffload::kOff);

// Turns checkpointing on for the model's repeated blocks (the types no_split_modules()
// names: GPT2Block, BertLayer, LlamaDecoderLayer) and for every child of an nn.Sequential anywhere in the tree.
// Returns how many modules now checkpoint; 0 means the model has nothing to checkpoint.
// With `offload`, their inputs wait for backward in host memory (activation_offload.h).
int enable_gradient_checkpointing(Module& model, ActivationOffload offload = ActivationOffload::kOff);

}  // namespace runner::models
