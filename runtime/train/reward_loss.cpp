#include "runtime/train/reward_loss.h"

#include <cmath>

#include <c10/core/GradMode.h>

#include "runtime/core/errors.h"

namespace runner::train {

RewardLoss::RewardLoss(RewardLossOptions o) : o_(o) {
  if (o_.center_rewards_coefficient && !std::isfinite(*o_.center_rewards_coefficient))
    throw RecipeError("models.reward_loss: center_rewards_coefficient must be a finite number");
}

LossResult RewardLoss::operator()(models::Module& model, const Batch& batch) {
  auto field = [&](const char* name) {
    auto it = batch.find(name);
    if (it == batch.end() || !it->second.defined())
      throw HookError(std::string("the reward loss needs input_ids and attention_mask in the batch (data.reward_collator makes them); this batch has no ") + name);
    return it->second;
  };
  const at::Tensor ids = field("input_ids"), attention = field("attention_mask");
  if (ids.dim() != 2 || ids.size(0) % 2 != 0)
    throw HookError("the reward loss needs (2B, T) input_ids: B chosen rows then B rejected ones (data.reward_collator), got " + c10::str(ids.sizes()));
  if (!model.takes_batch()) throw HookError("the reward loss needs a sequence classifier that takes the batch (models.llama{num_labels = 1}, models.from_pretrained)");
  const int64_t B = ids.size(0) / 2;
  models::TensorMap out;
  {
    std::optional<models::DropoutDisabled> no_dropout;
    if (o_.disable_dropout) no_dropout.emplace();
    out = model.forward_batch({{"input_ids", ids}, {"attention_mask", attention}});
  }
  auto lit = out.find("logits");
  if (lit == out.end() || lit->second.dim() != 2 || lit->second.size(0) != 2 * B || lit->second.size(1) != 1)
    throw HookError("the reward loss needs one reward per row, (2B, 1) logits from a sequence classifier with num_labels = 1; the model returned " +
                    (lit == out.end() ? std::string("none") : "logits of shape " + c10::str(lit->second.sizes())));
  const at::Tensor& logits = lit->second;
  const auto halves = logits.squeeze(-1).chunk(2, 0);
  const at::Tensor &chosen = halves[0], &rejected = halves[1];
  at::Tensor difference = chosen - rejected;
  if (auto m = batch.find("margin"); m != batch.end() && m->second.defined()) {
    if (m->second.numel() != B)
      throw HookError("the reward loss needs one margin per pair (" + std::to_string(B) + "), got " + std::to_string(m->second.numel()));
    difference = difference - m->second.reshape({B}).to(difference.device());  // fp32: the difference promotes, as in TRL
  }
  LossResult r;
  r.loss = -at::log_sigmoid(difference).mean();
  if (o_.center_rewards_coefficient) r.loss = r.loss + *o_.center_rewards_coefficient * (chosen + rejected).pow(2).mean();
  r.outputs = {{"logits", logits}};
  c10::NoGradGuard no_grad;
  using Across = LossResult::Metric::Across;
  const at::Tensor rewards = logits.detach(), c = chosen.detach(), j = rejected.detach();
  r.metrics = {{"min_reward", rewards.min(), {}, Across::kMin},
               {"mean_reward", rewards.mean(), {}},
               {"max_reward", rewards.max(), {}, Across::kMax},
               {"accuracy", c.gt(j).to(at::kFloat).mean(), {}},
               {"margin", (c - j).mean(), {}}};
  return r;
}

}  // namespace runner::train
