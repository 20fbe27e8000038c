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
  double label_smoothing = 0.0;        // args.label_smoothing_factor
};

// Batch models get the batch (minus fields they do not read when remove_unused_columns);
// plain layers (nn.Sequential, nn.Linear) get one field: input_name, else "input", else
// the first field that is not a label. Their output tensor becomes outputs.logits.
models::TensorMap call_model(models::Module& model, const Batch& batch, const CallOptions& options);

// HF's compute_loss default: the model's own "loss" output, with a clear error if absent.
// With label smoothing, labels are withheld from the model and the smoothed loss is
// computed from its logits instead (HF LabelSmoother).
LossResult default_compute_loss(models::Module& model, const Batch& batch, const CallOptions& options);

// HF LabelSmoother: (1 − ε)·NLL + ε·mean over classes of −log p, over labels ≠ -100;
// `shift` compares logits at t with labels at t+1 (causal language models).
at::Tensor label_smoothed_loss(const at::Tensor& logits, const at::Tensor& labels, double epsilon, bool shift);

// The prediction tensor of a model's outputs: "logits", else the only non-loss output.
at::Tensor logits_of(const models::TensorMap& outputs);

// Items the loss is averaged over: labels that are not -100 for integer labels, else the
// number of examples (also when the batch has no labels). `shifted`: the model predicts
// token t+1 at t (Module::shifts_labels), so its loss averages labels[..., 1:] and only
// those count; HF counts the unshifted labels, which weights micro-batches that pad
// differently wrongly and breaks "batch 8 × 1 step = 2 × 4 accumulated" (DESIGN.md).
int64_t count_items(const Batch& batch, const std::vector<std::string>& label_names, bool shifted = false);

}  // namespace runner::train
