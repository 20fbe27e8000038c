// The Trainer: HF Trainer's train / evaluate loop as a short top-to-bottom loop plus
// collaborators (CallbackHandler, FlatParams + Optimizer + Scheduler, checkpoint writer).
// User code is reached only through Hooks and Callbacks.
#pragma once
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "runtime/core/callback.h"
#include "runtime/core/trainer_state.h"
#include "runtime/core/training_args.h"
#include "runtime/data/dataloader.h"
#include "runtime/models/module.h"
#include "runtime/optim/optimizer.h"
#include "runtime/optim/scheduler.h"
#include "runtime/train/callback_handler.h"
#include "runtime/train/hooks.h"
#include "runtime/train/model_call.h"

namespace runner::train {

struct Datasets {
  data::DatasetPtr train, eval, test;
};

struct TrainerOptions {
  std::string input_name;   // recipe's `input_name` for plain layer models
  std::string recipe_path;  // copied into checkpoints as recipe.lua
  data::Collator collator;  // empty = default
};

struct TrainOutput {
  int64_t global_step = 0;
  double training_loss = 0.0;
  nlohmann::json metrics;
};

class Trainer {
 public:
  Trainer(TrainingArguments args, models::ModulePtr model, Datasets datasets, std::shared_ptr<Hooks> hooks,
          std::vector<std::shared_ptr<Callback>> callbacks, TrainerOptions options = {});

  TrainOutput train();
  nlohmann::json evaluate(const std::string& prefix = "eval");
  // model.safetensors in `dir` (default output_dir), written atomically.
  void save_model(const std::string& dir = "");
  void save_state();  // trainer_state.json in output_dir

  const TrainerState& state() const { return state_; }
  const TrainingArguments& args() const { return args_; }
  models::Module& model() { return *model_; }

 private:
  // train() pieces, in the order they run
  void create_optimizer_and_scheduler();
  double training_step(const Batch& batch, LossContext& ctx);
  double clip_gradients();
  void maybe_log_save_evaluate(double grad_norm, double lr);
  void log(nlohmann::json logs);
  void save_checkpoint();
  LossResult compute_loss(const Batch& batch, LossContext& ctx);

  data::DataLoader make_loader(const data::DatasetPtr& ds, bool shuffle, int64_t batch_size) const;

  TrainingArguments args_;
  models::ModulePtr model_;
  Datasets datasets_;
  std::shared_ptr<Hooks> hooks_;
  TrainerOptions options_;
  CallOptions call_;
  CallbackHandler callbacks_;
  TrainerState state_;
  TrainerControl control_;

  std::unique_ptr<optim::FlatParams> flat_;
  std::unique_ptr<optim::Optimizer> optimizer_;
  std::unique_ptr<optim::Scheduler> scheduler_;
  std::vector<double> base_lrs_;

  // Loss bookkeeping between log events (HF tr_loss / _total_loss_scalar).
  double tr_loss_ = 0.0;
  double total_loss_ = 0.0;
  int64_t last_logged_step_ = 0;
};

}  // namespace runner::train
