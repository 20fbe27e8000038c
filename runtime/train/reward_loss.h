// A reward model's loss, as TRL's RewardTrainer computes it (Bradley–Terry, Ouyang et al. 2022):
// a compute_loss for batches of data.reward_collator (2B rows: B chosen sequences, then B
// rejected ones). One forward of a one-output sequence classifier (num_labels = 1) scores every
// row; with r_c and r_r the chosen and rejected rewards of a pair,
//   loss = mean(−log σ(r_c − r_r − margin)) [+ center_rewards_coefficient · mean((r_c + r_r)²)],
// the margin a batch's `margin` field when it has one (the dataset's column). The metrics are
// TRL's: min_reward, mean_reward, max_reward (over every rank's rewards), accuracy (r_c > r_r)
// and margin (mean r_c − r_r).
#pragma once
#include <optional>
#include <string>

#include "runtime/train/builtin_loss.h"

namespace runner::train {

struct RewardLossOptions {
  std::optional<double> center_rewards_coefficient;  // TRL's; 0.01 is the paper's
  bool disable_dropout = true;                       // TRL's default: dropout off in the model's forward
};

class RewardLoss : public BuiltinLoss {
 public:
  explicit RewardLoss(RewardLossOptions options);  // RecipeError for a bad option
  std::string name() const override { return "models.reward_loss"; }
  // HookError when the batch is not a pair batch or the model gives more than one output a row.
  LossResult operator()(models::Module& model, const Batch& batch) override;

 private:
  RewardLossOptions o_;
};

}  // namespace runner::train
