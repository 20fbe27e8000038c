#include "runtime/train/preference_loss.h"

#include <algorithm>
#include <cmath>

#include <c10/core/GradMode.h>

#include "runtime/core/errors.h"
#include "runtime/models/lora.h"
#include "runtime/models/parameter_store.h"
#include "runtime/models/pretrained.h"

namespace runner::train {

namespace {

const at::Tensor& field(const Batch& batch, const char* name) {
  auto it = batch.find(name);
  if (it == batch.end() || !it->second.defined())
    throw HookError(std::string("the DPO loss needs input_ids, attention_mask and completion_mask in the batch (data.preference_collator "
                                "makes them); this batch has no ") + name);
  return it->second;
}

at::Tensor logsig(const at::Tensor& x) { return at::log_sigmoid(x); }

}  // namespace

const std::vector<std::string>& preference_loss_types() {
  static const std::vector<std::string> types{"sigmoid", "hinge", "ipo", "exo_pair", "nca_pair", "robust", "bco_pair", "sppo_hard",
                                              "aot", "aot_unpaired", "apo_zero", "apo_down", "discopop", "sft", "sigmoid_norm"};
  return types;
}

PreferenceLoss::PreferenceLoss(PreferenceLossOptions o) : o_(std::move(o)) {
  const std::string fn = "models.dpo_loss: ";
  if (!(o_.beta > 0)) throw RecipeError(fn + "beta must be > 0, got " + std::to_string(o_.beta));
  if (o_.loss_type.empty()) throw RecipeError(fn + "loss_type must name at least one loss");
  const auto& types = preference_loss_types();
  for (const std::string& t : o_.loss_type)
    if (std::find(types.begin(), types.end(), t) == types.end()) {
      std::string all;
      for (const auto& k : types) all += (all.empty() ? "" : ", ") + k;
      throw RecipeError(fn + "unknown loss_type \"" + t + "\" (" + all + ")");
    }
  if (o_.loss_weights.empty()) o_.loss_weights.assign(o_.loss_type.size(), 1.0);
  if (o_.loss_weights.size() != o_.loss_type.size())
    throw RecipeError(fn + "loss_weights has " + std::to_string(o_.loss_weights.size()) + " weights for " + std::to_string(o_.loss_type.size()) +
                      " loss types");
  const bool robust = std::count(o_.loss_type.begin(), o_.loss_type.end(), "robust") > 0;
  const bool exo = std::count(o_.loss_type.begin(), o_.loss_type.end(), "exo_pair") > 0;
  if (!(o_.label_smoothing >= 0 && o_.label_smoothing < (robust ? 0.5 : 1.0)))
    throw RecipeError(fn + "label_smoothing must be in [0, " + (robust ? "0.5" : "1") + "), got " + std::to_string(o_.label_smoothing));
  if (exo && !(o_.label_smoothing > 0)) throw RecipeError(fn + "loss_type \"exo_pair\" needs label_smoothing > 0 (its ε; the paper uses 1e-3)");
  if (o_.ld_alpha && !(*o_.ld_alpha >= 0 && *o_.ld_alpha <= 1)) throw RecipeError(fn + "ld_alpha must be in [0, 1]");
  if (!(o_.discopop_tau > 0)) throw RecipeError(fn + "discopop_tau must be > 0");
}

void PreferenceLoss::attach(models::Module& model, bool may_copy) {
  if (attached_) return;
  if (o_.ref_model) {
    if (o_.ref_model.get() == &model) throw RecipeError("models.dpo_loss: ref_model is the model being trained; give a copy (or leave ref_model out)");
    o_.ref_model->eval();
    for (at::Tensor& p : o_.ref_model->parameters()) p.requires_grad_(false);
    attached_ = true;
    return;
  }
  // TRL's references: a new adapter's is the base (adapters disabled), a pretrained adapter's the
  // model as loaded. modules_to_save train in place, so disabling the adapters would not give
  // the base's: the base is copied now instead.
  const auto& lora = model.lora();
  if (lora && !lora->pretrained_adapters && lora->saved.empty()) {
    base_is_reference_ = true;
    attached_ = true;
    return;
  }
  if (!may_copy)
    throw RecipeError("models.dpo_loss: no copy of the model was taken for the reference when the recipe was loaded (the model comes from "
                      "model_init, or the loss is called from the recipe's own compute_loss without model = ...); give ref_model = "
                      "models.from_pretrained(...) (or train new LoRA adapters)");
  try {
    o_.ref_model = models::copy_model(model, /*with_adapters=*/lora && lora->pretrained_adapters);
  } catch (const RecipeError& e) {
    throw RecipeError("models.dpo_loss: the reference is a copy of the model, but " + e.message() + "; give ref_model = ...");
  }
  for (at::Tensor& p : o_.ref_model->parameters()) p.requires_grad_(false);
  attached_ = true;
}

PreferenceLoss::SequenceScores PreferenceLoss::score(const at::Tensor& logits, const at::Tensor& input_ids, const at::Tensor& mask) const {
  const int64_t T = input_ids.size(1);
  // Position t predicts token t + 1: the log probability of each completion token.
  const at::Tensor target = input_ids.narrow(1, 1, T - 1).unsqueeze(-1);
  SequenceScores s;
  if (c10::GradMode::is_enabled()) {
    // Over the contiguous logits, then cut: a narrowed input would be copied whole first.
    s.log_probs = at::log_softmax(logits, -1, at::kFloat).narrow(1, 0, T - 1);  // (2B, T-1, V)
    s.per_token = s.log_probs.gather(-1, target).squeeze(-1) * mask;            // (2B, T-1)
  } else {
    // The reference needs one log probability per position: a row at a time, never a whole
    // (2B, T, V) fp32 tensor.
    s.per_token = at::empty(mask.sizes(), mask.options());
    for (int64_t i = 0; i < input_ids.size(0); ++i) {
      const at::Tensor row = logits[i].narrow(0, 0, T - 1).to(at::kFloat);  // (T-1, V)
      s.per_token[i].copy_(row.gather(-1, target[i]).squeeze(-1) - row.logsumexp(-1));
    }
    s.per_token.mul_(mask);
  }
  if (!o_.ld_alpha) {
    s.logps = s.per_token.sum(1);
    return s;
  }
  // LD-DPO: the tokens past the shorter completion of the pair weigh ld_alpha.
  const at::Tensor position = mask.cumsum(1), length = mask.sum(1);
  const auto halves = length.chunk(2, 0);
  const at::Tensor shared = at::minimum(halves[0], halves[1]).repeat({2}).unsqueeze(1);
  const at::Tensor in_shared = (position > 0).logical_and(position <= shared).to(mask.scalar_type()), tail = (position > shared).to(mask.scalar_type());
  s.logps = (s.per_token * in_shared).sum(1) + *o_.ld_alpha * (s.per_token * tail).sum(1);
  return s;
}

at::Tensor PreferenceLoss::reference_logps(models::Module& model, const Batch& inputs, const at::Tensor& input_ids, const at::Tensor& mask) {
  c10::NoGradGuard no_grad;
  models::TensorMap out;
  if (o_.ref_model) {
    models::Module& ref = *o_.ref_model;
    models::materialize(ref);  // a from_pretrained reference still in its files
    if (auto d = ref.device(); d && *d != input_ids.device()) ref.to(input_ids.device());
    out = ref.forward_batch(inputs);
  } else {
    // Only a new LoRA adapter's base is the reference without a model of its own (attach).
    if (!base_is_reference_) throw HookError("the DPO loss has no reference model (models.dpo_loss's reference was not settled)");
    const models::AdaptersDisabled base;  // the LoRA model's base, in the policy's mode (TRL's)
    std::optional<models::DropoutDisabled> no_dropout;
    if (o_.disable_dropout) no_dropout.emplace();
    out = model.forward_batch(inputs);
  }
  auto it = out.find("logits");
  if (it == out.end()) throw HookError("the DPO reference model returned no logits");
  return score(it->second, input_ids, mask).logps;
}

at::Tensor PreferenceLoss::pair_losses(const std::string& type, const at::Tensor& cl, const at::Tensor& rl, const at::Tensor& chosen_logps,
                                       const at::Tensor& rejected_logps, const at::Tensor& ref_chosen, const at::Tensor& ref_rejected,
                                       const at::Tensor& completion_mask, const SequenceScores& policy) const {
  const double beta = o_.beta, ls = o_.label_smoothing;
  const at::Tensor delta = cl - rl;  // reverse KL: the scores are the log ratios
  if (type == "sigmoid") return -logsig(beta * delta);
  if (type == "hinge") return at::relu(1 - beta * delta);
  if (type == "ipo" || type == "sigmoid_norm") {
    // Per completion token (TRL counts the unshifted completion_mask).
    const auto m = completion_mask.chunk(2, 0);
    const at::Tensor d = cl / m[0].sum(1).clamp_min(1) - rl / m[1].sum(1).clamp_min(1);
    return type == "ipo" ? (d - 1 / (2 * beta)).pow(2) : -logsig(beta * d);
  }
  if (type == "exo_pair")
    return at::sigmoid(beta * delta) * (logsig(beta * delta) - std::log1p(-ls)) + at::sigmoid(-beta * delta) * (logsig(-beta * delta) - std::log(ls));
  if (type == "nca_pair") return -logsig(beta * cl) - 0.5 * logsig(-beta * cl) - 0.5 * logsig(-beta * rl);
  if (type == "robust") return (-(1 - ls) * logsig(beta * delta) + ls * logsig(-beta * delta)) / (1 - 2 * ls);
  if (type == "bco_pair") return -logsig(beta * cl) - logsig(-beta * rl);
  if (type == "sppo_hard") return (cl - 0.5 / beta).pow(2) + (rl + 0.5 / beta).pow(2);
  if (type == "aot" || type == "aot_unpaired") {
    const at::Tensor a = std::get<0>((type == "aot" ? chosen_logps - rejected_logps : cl).sort(0));
    const at::Tensor b = std::get<0>((type == "aot" ? ref_chosen - ref_rejected : rl).sort(0));
    return -logsig(beta * (a - b)) * (1 - ls) - logsig(-beta * (a - b)) * ls;
  }
  if (type == "apo_zero") return (1 - at::sigmoid(beta * cl)) + at::sigmoid(beta * rl);
  if (type == "apo_down") return at::sigmoid(beta * cl) + (1 - at::sigmoid(beta * delta));
  if (type == "discopop") {
    const at::Tensor logits = beta * delta, modulation = at::sigmoid(logits / o_.discopop_tau);
    return -logsig(logits) * (1 - modulation) + at::exp(-logits) * modulation;
  }
  // sft: the chosen completions' negative log likelihood per token, the same for every pair.
  const int64_t B = cl.size(0);
  const at::Tensor chosen_tokens = policy.per_token.narrow(0, 0, B);
  const at::Tensor chosen_mask = completion_mask.narrow(0, 0, B).narrow(1, 1, completion_mask.size(1) - 1).to(at::kBool);
  return (-chosen_tokens.masked_select(chosen_mask).mean()).expand({B});
}

LossResult PreferenceLoss::operator()(models::Module& model, const Batch& batch) {
  if (!attached_) attach(model, /*may_copy=*/false);  // model_init's model: no copy was taken at load
  const at::Tensor &ids = field(batch, "input_ids"), &attention = field(batch, "attention_mask"), &completion = field(batch, "completion_mask");
  if (ids.dim() != 2 || ids.size(0) % 2 != 0 || ids.size(1) < 2 || !completion.sizes().equals(ids.sizes()))
    throw HookError("the DPO loss needs (2B, T) input_ids and completion_mask: B chosen rows then B rejected ones (data.preference_collator), got " +
                    c10::str(ids.sizes()));
  if (!model.takes_batch()) throw HookError("the DPO loss needs a causal language model that takes the batch (models.llama, models.gpt, models.from_pretrained)");
  const int64_t B = ids.size(0) / 2, T = ids.size(1);
  const Batch inputs{{"input_ids", ids}, {"attention_mask", attention}};
  models::TensorMap out;
  {
    std::optional<models::DropoutDisabled> no_dropout;
    if (o_.disable_dropout) no_dropout.emplace();
    out = model.forward_batch(inputs);
  }
  auto lit = out.find("logits");
  if (lit == out.end() || lit->second.dim() != 3)
    throw HookError("the DPO loss needs a causal LM's (2B, T, V) logits; the model returned " +
                    (lit == out.end() ? std::string("none") : "logits of shape " + c10::str(lit->second.sizes())));
  const at::Tensor& logits = lit->second;
  const at::Tensor mask = completion.narrow(1, 1, T - 1).to(at::kFloat);
  const SequenceScores policy = score(logits, ids, mask);
  const auto halves = policy.logps.chunk(2, 0);
  const at::Tensor &chosen_logps = halves[0], &rejected_logps = halves[1];
  at::Tensor ref_chosen, ref_rejected;
  if (batch.count("ref_chosen_logps") && batch.count("ref_rejected_logps")) {  // precomputed
    ref_chosen = batch.at("ref_chosen_logps").to(chosen_logps.options()), ref_rejected = batch.at("ref_rejected_logps").to(chosen_logps.options());
  } else {
    const auto ref = reference_logps(model, inputs, ids, mask).chunk(2, 0);
    ref_chosen = ref[0], ref_rejected = ref[1];
  }
  const at::Tensor cl = chosen_logps - ref_chosen, rl = rejected_logps - ref_rejected;
  at::Tensor loss = at::zeros({}, chosen_logps.options());
  for (size_t i = 0; i < o_.loss_type.size(); ++i)
    loss = loss + pair_losses(o_.loss_type[i], cl, rl, chosen_logps, rejected_logps, ref_chosen, ref_rejected, completion, policy).mean() * o_.loss_weights[i];

  LossResult r;
  r.loss = loss;
  c10::NoGradGuard no_grad;
  const at::Tensor chosen_rewards = o_.beta * cl.detach(), rejected_rewards = o_.beta * rl.detach();
  const at::Tensor shifted = logits.detach().narrow(1, 0, T - 1);
  const at::Tensor chosen_mask = mask.narrow(0, 0, B), rejected_mask = mask.narrow(0, B, B);
  // Token means are reported as sums over their tokens with the count as weight (metric_means.h).
  auto over_tokens = [](const char* name, const at::Tensor& values, const at::Tensor& m) { return LossResult::Metric{name, (values * m).sum(), m.sum()}; };
  const at::Tensor mean_logits = shifted.mean(-1, /*keepdim=*/false, at::kFloat);  // (2B, T-1)
  // The entropy from the loss's own log probabilities (in evaluation, where there are none, from
  // the logits), a row at a time: one more (2B, T, V) tensor would double the loss's largest allocation.
  at::Tensor entropy = at::empty(mask.sizes(), mask.options());
  for (int64_t i = 0; i < 2 * B; ++i) {
    const at::Tensor lp = policy.log_probs.defined() ? policy.log_probs[i].detach() : at::log_softmax(shifted[i], -1, at::kFloat);
    entropy[i].copy_(-(lp.exp() * lp).sum(-1));
  }
  const at::Tensor top1 = shifted.narrow(0, 0, B).argmax(-1).eq(ids.narrow(0, 0, B).narrow(1, 1, T - 1)).to(at::kFloat);
  r.metrics = {{"rewards/chosen", chosen_rewards.mean(), {}},
               {"rewards/rejected", rejected_rewards.mean(), {}},
               {"rewards/accuracies", chosen_rewards.gt(rejected_rewards).to(at::kFloat).mean(), {}},
               {"rewards/margins", (chosen_rewards - rejected_rewards).mean(), {}},
               {"logps/chosen", chosen_logps.detach().mean(), {}},
               {"logps/rejected", rejected_logps.detach().mean(), {}},
               over_tokens("logits/chosen", mean_logits.narrow(0, 0, B), chosen_mask),
               over_tokens("logits/rejected", mean_logits.narrow(0, B, B), rejected_mask),
               over_tokens("entropy", entropy, mask),
               over_tokens("mean_token_accuracy", top1, chosen_mask)};
  return r;
}

}  // namespace runner::train
