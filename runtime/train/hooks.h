// The only way the Trainer reaches user code. Lua implements this interface
// (bindings/lua); a C++ program can implement it too and train without Lua. Every hook
// returns std::nullopt / nullptr / false for "not overridden": the runtime default runs.
// The runtime wraps each hook: accumulation scaling, no_grad for evaluation, clipping and
// the optimizer step stay the runtime's job.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/core/training_args.h"
#include "runtime/models/module.h"

namespace runner::train {

using Batch = models::TensorMap;

// What compute_loss knows about the optimizer step it is part of (DESIGN.md contract).
struct LossContext {
  int64_t num_items_in_batch = 0;  // label items (-100 excluded) in the whole optimizer step
  int64_t micro_items = 0;         // the same count for this micro-batch
  bool loss_is_normalized = false;  // set by a hook that already divided by num_items_in_batch
  bool training = true;
  at::Device device{at::kCPU};  // where the batch is (ctx.device in Lua)
  // training_step may call this itself (several backward passes); it applies the same
  // micro_items / num_items_in_batch weighting the runtime would.
  std::function<void(const at::Tensor&)> backward;
  bool backward_called = false;
};

struct LossResult {
  at::Tensor loss;           // scalar: the mean over the micro-batch's items (unless normalized)
  models::TensorMap outputs;  // "logits" is what evaluation collects as predictions
  // Named values to log beside the loss (TRL's _metrics: "rewards/chosen", ...), averaged over
  // the calls and ranks since the last log, and over an evaluation (as "eval_<name>").
  struct Metric {
    std::string name;
    at::Tensor value;   // one value; with `weight`, the sum of that many items' values
    at::Tensor weight;  // undefined: the call counts once (a token mean weighs its tokens)
    // kMin / kMax: each call's value is first the minimum (maximum) over the ranks' values of
    // that call, then the calls are averaged (TRL's min_reward: the minimum of a gathered batch).
    enum class Across { kMean, kMin, kMax } across = Across::kMean;
  };
  std::vector<Metric> metrics;
};

// One evaluation batch: any of the three may be undefined.
struct PredictionResult {
  at::Tensor loss, logits, labels;
};

// HF EvalPrediction: concatenated over the dataset (padded with -100 where lengths differ).
struct EvalPrediction {
  at::Tensor predictions, label_ids;
  at::Tensor inputs, losses;  // with include_for_metrics = {"inputs", "loss"}
};

// An optimizer described by a create_optimizer hook (HF optimizer names and options).
struct OptimizerSpec {
  std::string type;              // adamw_torch, sgd, adafactor, adagrad, rmsprop
  double lr = 0, weight_decay = 0;
  nlohmann::json options = nlohmann::json::object();  // betas, eps, momentum, ...
  struct Group {
    std::vector<std::string> names;  // exact parameter names
    std::string match;               // or a regular expression over names
    std::optional<double> lr, weight_decay;
  };
  std::vector<Group> groups;  // empty: HF's decay / no-decay split
};

// A schedule from create_scheduler: a multiplier of the base lr per step, or an HF type.
struct SchedulerSpec {
  std::function<double(int64_t)> lambda;
  std::string type;
  nlohmann::json kwargs = nlohmann::json::object();
  std::optional<int64_t> warmup_steps;
};

class Hooks {
 public:
  virtual ~Hooks() = default;
  virtual std::optional<LossResult> compute_loss(models::Module& model, const Batch& inputs, LossContext& ctx) {
    return std::nullopt;
  }
  // A whole micro-step; returns the loss (the runtime calls ctx.backward unless the hook did).
  virtual std::optional<at::Tensor> training_step(models::Module& model, const Batch& inputs, LossContext& ctx) {
    return std::nullopt;
  }
  virtual std::optional<PredictionResult> prediction_step(models::Module& model, const Batch& inputs, bool prediction_loss_only) {
    return std::nullopt;
  }
  virtual bool has_compute_metrics() const { return false; }
  // Whether compute_loss needs no labels in the batch (DPO's loss reads its completion_mask):
  // evaluation then computes the loss of every batch, as TRL's prediction_step does.
  virtual bool loss_without_labels() const { return false; }
  // compute_result is false except on the last batch with batch_eval_metrics.
  virtual nlohmann::json compute_metrics(const EvalPrediction& p, bool compute_result) { return nlohmann::json::object(); }
  virtual std::optional<at::Tensor> preprocess_logits_for_metrics(const at::Tensor& logits, const at::Tensor& labels) {
    return std::nullopt;
  }
  virtual std::optional<OptimizerSpec> create_optimizer(models::Module& model, const TrainingArguments& args) {
    return std::nullopt;
  }
  virtual std::optional<SchedulerSpec> create_scheduler(int64_t num_training_steps, const TrainingArguments& args) {
    return std::nullopt;
  }
  virtual models::ModulePtr model_init() { return nullptr; }
  // The hooks that run inside a training step (compute_loss, training_step) as host code the
  // runtime cannot see into: a captured step (cuda_graphs) would replay their tensor work but
  // not their host side, so their presence keeps the steps eager.
  virtual std::vector<std::string> step_hooks() const { return {}; }
  // A short description of where hooks come from ("recipes/x.lua"), for messages.
  virtual std::string origin() const { return "C++"; }
  // Frees what the hooks' language still holds but no longer uses (Lua's garbage: tensors a
  // hook or a Lua-written model made, a failed step's loss with its graph). Called after an
  // out-of-memory error, before the GPU cache is emptied: it cannot give back blocks that
  // such tensors still own.
  virtual void collect_garbage() {}
};

}  // namespace runner::train
