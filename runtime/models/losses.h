// The losses the built-in models return with "labels", as means over the items that count
// (labels of -100 are ignored, as in PyTorch and HF), so the trainer's per-item weighting of
// micro-batches applies to them unchanged.
#pragma once
#include <string>

#include <ATen/ATen.h>

namespace runner::models {

// logits (N, K) or (*, K); labels: integer class ids shaped like logits without the last
// dimension (-100 ignored), or floating-point class probabilities shaped like logits.
at::Tensor classification_loss(const at::Tensor& logits, const at::Tensor& labels, const std::string& model);

// Mean squared error; labels are reshaped to the logits when they hold as many values
// ((B) labels for (B, 1) outputs).
at::Tensor regression_loss(const at::Tensor& logits, const at::Tensor& labels, const std::string& model);

// Multi-label classification (HF problem_type "multi_label_classification"): binary
// cross-entropy with logits, labels (B, K) of 0/1 floats.
at::Tensor multi_label_loss(const at::Tensor& logits, const at::Tensor& labels, const std::string& model);

// Causal language modelling: logits (B, T, V) at position t predict labels (B, T) at t+1;
// the cross-entropy is taken on the logits upcast to fp32, as HF's ForCausalLMLoss does.
at::Tensor shifted_lm_loss(const at::Tensor& logits, const at::Tensor& labels, const std::string& model);

// The same loss from the last hidden states (B, T, C) and the output projection (V, C)
// without making the logits (kernels/linear_cross_entropy.h): equal to
// shifted_lm_loss(linear(hidden, weight), labels) to float rounding, gradients included.
at::Tensor fused_shifted_lm_loss(const at::Tensor& hidden, const at::Tensor& weight, const at::Tensor& labels, const std::string& model);

}  // namespace runner::models
