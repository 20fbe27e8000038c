// DPO (Rafailov et al. 2023) and its variants, as TRL's DPOTrainer computes them: a compute_loss
// for batches of data.preference_collator (2B rows: B prompt+chosen, then B prompt+rejected,
// with a completion_mask). One forward of the policy scores both halves: a sequence's log
// probability is the sum of its completion tokens' log probabilities; the reference model's,
// under no_grad, is the baseline. The loss is per pair, on the log ratios
// r_c = log π(chosen) − log π_ref(chosen) and r_r likewise, e.g. sigmoid: −log σ(β (r_c − r_r)).
// The reference is the one given, else as TRL's: a new LoRA adapter's base (the adapters
// disabled, as peft's disable_adapter), else a frozen copy of the model taken when the recipe is
// loaded (create_reference_model; a pretrained adapter's model with it merged). The metrics are TRL's: rewards/{chosen,rejected,accuracies,margins},
// logps/{chosen,rejected}, logits/{chosen,rejected}, entropy and mean_token_accuracy.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "runtime/models/module.h"
#include "runtime/train/builtin_loss.h"
#include "runtime/train/hooks.h"

namespace runner::train {

struct PreferenceLossOptions {
  double beta = 0.1;
  // TRL's loss_type: several are summed with loss_weights (MPO); see kPreferenceLossTypes.
  std::vector<std::string> loss_type{"sigmoid"};
  std::vector<double> loss_weights;  // empty: 1 each
  double label_smoothing = 0.0;      // robust (flip probability, < 0.5) and exo_pair (ε)
  double discopop_tau = 0.05;
  std::optional<double> ld_alpha;    // LD-DPO: tokens past the shorter completion weigh ld_alpha
  bool disable_dropout = true;       // TRL's default: dropout off in the policy's forward
  models::ModulePtr ref_model;       // null: the LoRA base, else a copy (attach)
};

// The loss types, in TRL's names.
const std::vector<std::string>& preference_loss_types();

class PreferenceLoss : public BuiltinLoss {
 public:
  explicit PreferenceLoss(PreferenceLossOptions options);  // RecipeError for a bad option
  std::string name() const override { return "models.dpo_loss"; }
  // Settles the reference for `model` when none was given: nothing for a new LoRA adapter, a
  // frozen copy for GPT-2 / Llama models (models::copy_model; RecipeError for others). Before training
  // starts (a resumed run must not copy its trained weights). `may_copy` false (a model that
  // model_init made when training started): a RecipeError instead of a copy.
  void attach(models::Module& model) override { attach(model, true); }
  void attach(models::Module& model, bool may_copy);
  bool attached() const { return attached_; }
  // The loss of one batch, its named metrics; HookError when the batch is not a preference batch.
  LossResult operator()(models::Module& model, const Batch& batch) override;

 private:
  struct SequenceScores {
    at::Tensor logps;      // (2B): the completions' log probabilities (ld_alpha-weighted)
    at::Tensor per_token;  // (2B, T-1): each completion token's log probability, 0 elsewhere
    at::Tensor log_probs;  // (2B, T-1, V) fp32: every next-token distribution (kept for backward anyway)
  };
  SequenceScores score(const at::Tensor& logits, const at::Tensor& input_ids, const at::Tensor& mask) const;
  at::Tensor reference_logps(models::Module& model, const Batch& inputs, const at::Tensor& input_ids, const at::Tensor& mask);
  at::Tensor pair_losses(const std::string& type, const at::Tensor& chosen, const at::Tensor& rejected, const at::Tensor& chosen_logps,
                         const at::Tensor& rejected_logps, const at::Tensor& ref_chosen, const at::Tensor& ref_rejected,
                         const at::Tensor& completion_mask, const SequenceScores& policy) const;
  PreferenceLossOptions o_;
  bool attached_ = false;
  bool base_is_reference_ = false;  // a new LoRA adapter: the reference is its base (adapters off)
};

}  // namespace runner::train
