// A compute_loss runner implements itself (models.dpo_loss, models.reward_loss): the trainer
// calls it directly, without Lua in the step, and evaluation calls it on batches without labels
// (as TRL's trainers set label_names = []).
#pragma once
#include <string>

#include "runtime/models/module.h"
#include "runtime/train/hooks.h"

namespace runner::train {

class BuiltinLoss {
 public:
  virtual ~BuiltinLoss() = default;
  virtual std::string name() const = 0;  // "models.dpo_loss": its recipe name, for messages
  // Called once the recipe's model is known, before a resumed run loads trained weights into
  // it (DPO takes its frozen reference then).
  virtual void attach(models::Module& /*model*/) {}
  // The loss of one batch, with its outputs and named metrics; HookError for a batch it cannot read.
  virtual LossResult operator()(models::Module& model, const Batch& batch) = 0;
};

}  // namespace runner::train
