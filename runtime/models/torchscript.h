// TorchScript modules exported from Python (torch.jit.script / trace, then .save) as
// models: their parameters and buffers appear in our Module tree under their PyTorch names
// (the very same tensors), so the optimizer, state dicts and checkpoints see them.
#pragma once
#include <string>

#include "runtime/models/module.h"

namespace runner::models {

// forward_batch calls the script's forward:
// - forward(self, batch: Dict[str, Tensor]) gets the whole batch;
// - otherwise each argument is the batch field of its name; a missing argument with a
//   default takes the default, a missing required one is a RecipeError naming it.
// Outputs: a Tensor → "logits"; a tuple → ("loss", "logits") when "labels" was passed,
// else "logits" = the first element that is not None; a Dict[str, Tensor] → as is.
// train()/eval() reach the script module. Load failures are CheckpointErrors.
ModulePtr load_torchscript(const std::string& path);

}  // namespace runner::models
