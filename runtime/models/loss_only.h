// Whether the caller of a model reads its logits. The Trainer's training step reads only the
// loss (DESIGN.md: compute_loss's default), so while it holds a LossOnlyScope a causal LM
// given labels may compute its loss fused with the output projection (kernels/
// linear_cross_entropy.h) and return no logits: the (tokens × vocabulary) logits, the largest
// tensor of a language model's step, are then never made. Everyone else (evaluation,
// prediction, a recipe's compute_loss, generation) calls outside a scope and gets logits.
#pragma once

namespace runner::models {

// While alive on this thread, loss_only() is true (scopes nest).
class LossOnlyScope {
 public:
  LossOnlyScope();
  ~LossOnlyScope();
  LossOnlyScope(const LossOnlyScope&) = delete;
  LossOnlyScope& operator=(const LossOnlyScope&) = delete;

 private:
  bool previous_;
};

bool loss_only();

}  // namespace runner::models
