// Calling a model on a batch, and the default loss, shared by training and evaluation.
#pragma once
#include <string>
#include <vector>

#include "runtime/train/hooks.h"

namespace runner::train {

struct CallOptions {
  std::string input_name;              // recipe's choice for tensor→tensor models ("" = pick)
  std::vector<std::string> label_names;  // fields that hold labels
  bool remove_unused_columns = true;
};

// Batch models get the batch (minus fields they do not read when remove_unused_columns);
// plain layers (nn.Sequential, nn.Linear) get one field: input_name, else "input", else
// the first field that is not a label. Their output tensor becomes outputs.logits.
models::TensorMap call_model(models::Module& model, const Batch& batch, const CallOptions& options);

// HF's compute_loss default: the model's own "loss" output, with a clear error if absent.
LossResult default_compute_loss(models::Module& model, const Batch& batch, const CallOptions& options);

// Items the loss is averaged over: labels that are not -100 for integer labels, else the
// number of examples (also when the batch has no labels).
int64_t count_items(const Batch& batch, const std::vector<std::string>& label_names);

}  // namespace runner::train
