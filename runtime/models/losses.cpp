#include "runtime/models/losses.h"

#include <ATen/core/Reduction.h>

#include "runtime/core/errors.h"
#include "runtime/kernels/linear_cross_entropy.h"
#include "runtime/models/batch_inputs.h"

namespace runner::models {

at::Tensor classification_loss(const at::Tensor& logits, const at::Tensor& labels, const std::string& model) {
  const int64_t k = logits.size(-1);
  if (labels.is_floating_point()) {
    if (!labels.sizes().equals(logits.sizes()))
      throw RecipeError(model + ": cross-entropy needs integer class labels (or class probabilities shaped like the logits " +
                        shape_string(logits.sizes()) + "), got " + c10::toString(labels.scalar_type()) + " labels of shape " +
                        shape_string(labels.sizes()) + "; for regression use an MSE loss");
    return at::cross_entropy_loss(logits.reshape({-1, k}), labels.reshape({-1, k}).to(logits.scalar_type()));
  }
  if (labels.numel() * k != logits.numel())
    throw RecipeError(model + ": " + std::to_string(labels.numel()) + " labels for logits of shape " + shape_string(logits.sizes()) +
                      " (one class id per row expected)");
  return at::cross_entropy_loss(logits.reshape({-1, k}), labels.reshape(-1).to(at::kLong), /*weight=*/{}, at::Reduction::Mean,
                                /*ignore_index=*/-100);
}

at::Tensor regression_loss(const at::Tensor& logits, const at::Tensor& labels, const std::string& model) {
  if (labels.numel() != logits.numel())
    throw RecipeError(model + ": MSE loss needs one target per output: labels of shape " + shape_string(labels.sizes()) +
                      " for outputs of shape " + shape_string(logits.sizes()));
  return at::mse_loss(logits, labels.reshape(logits.sizes()).to(logits.scalar_type()));
}

at::Tensor multi_label_loss(const at::Tensor& logits, const at::Tensor& labels, const std::string& model) {
  if (labels.numel() != logits.numel())
    throw RecipeError(model + ": multi-label loss needs labels shaped like the logits " + shape_string(logits.sizes()) + ", got " +
                      shape_string(labels.sizes()));
  return at::binary_cross_entropy_with_logits(logits, labels.reshape(logits.sizes()).to(logits.scalar_type()));
}

namespace {

// labels (B, T) integer ids for a causal LM's (B, T, ...) output.
void check_lm_labels(const at::Tensor& labels, at::IntArrayRef batch_and_time, const std::string& model) {
  if (labels.dim() != 2 || labels.size(0) != batch_and_time[0] || labels.size(1) != batch_and_time[1])
    throw RecipeError(model + ": labels must be (batch, sequence) like input_ids " + shape_string(batch_and_time) + ", got " +
                      shape_string(labels.sizes()));
  if (!at::isIntegralType(labels.scalar_type(), /*includeBool=*/false))
    throw RecipeError(model + ": labels must be integer token ids (-100 = ignored), got " + c10::toString(labels.scalar_type()));
}

}  // namespace

at::Tensor shifted_lm_loss(const at::Tensor& logits, const at::Tensor& labels, const std::string& model) {
  // logits (B, T, V), labels (B, T)
  check_lm_labels(labels, logits.sizes().slice(0, 2), model);
  const int64_t t = logits.size(1), v = logits.size(2);
  at::Tensor pred = logits.narrow(1, 0, t - 1).reshape({-1, v}).to(at::kFloat);  // (B·(T-1), V)
  at::Tensor target = labels.narrow(1, 1, t - 1).reshape(-1).to(at::kLong);      // (B·(T-1))
  return at::cross_entropy_loss(pred, target, /*weight=*/{}, at::Reduction::Mean, /*ignore_index=*/-100);
}

at::Tensor fused_shifted_lm_loss(const at::Tensor& hidden, const at::Tensor& weight, const at::Tensor& labels, const std::string& model) {
  // hidden (B, T, C), labels (B, T)
  check_lm_labels(labels, hidden.sizes().slice(0, 2), model);
  // HF's shift: labels move left by one and the last position gets -100, so every hidden
  // state keeps its place (no (B, T-1, C) copy) and the last one predicts nothing.
  const at::Tensor target = at::constant_pad_nd(labels.narrow(1, 1, labels.size(1) - 1).to(at::kLong), {0, 1}, -100);  // (B, T)
  return kernels::linear_cross_entropy(hidden, weight, /*bias=*/{}, target);
}

}  // namespace runner::models
