// The Trainer: HF Trainer's train / evaluate / predict as a short top-to-bottom loop plus
// collaborators (CallbackHandler, FlatParams + Optimizer + Scheduler, checkpoint folders,
// the evaluation accumulator). User code is reached only through Hooks and Callbacks.
//
// trainer.cpp     construction, the training loop, one training step, logging
// trainer_optimizer.cpp  the optimizer over the trainable parameters, the schedule
// evaluate.cpp    evaluation and prediction loops, metrics
// checkpoint.cpp  checkpoint-N folders, best-model tracking, rotation, resuming
// save.cpp        final outputs (model.safetensors or LoRA adapters, trainer_state.json)
// batch_size_finder.cpp  auto_find_batch_size
#pragma once
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/core/callback.h"
#include "runtime/core/trainer_state.h"
#include "runtime/core/training_args.h"
#include "runtime/data/dataloader.h"
#include "runtime/models/batch_inputs.h"
#include "runtime/models/module.h"
#include "runtime/optim/optimizer.h"
#include "runtime/optim/scheduler.h"
#include "runtime/device/autocast.h"
#include "runtime/train/callback_handler.h"
#include "runtime/device/device.h"
#include "runtime/train/loss_scaler.h"
#include "runtime/train/loss_tracker.h"
#include "runtime/dist/data_parallel.h"
#include "runtime/train/hooks.h"
#include "runtime/train/memory_tracker.h"
#include "runtime/train/model_call.h"

namespace runner::io {
class DirLock;
}  // namespace runner::io

namespace runner::train {

using device::AutocastGuard;
using device::DevicePlan;

struct Datasets {
  data::DatasetPtr train, eval, test;
  // A table of eval datasets: each is evaluated with the prefix eval_<name> (HF dict form).
  std::map<std::string, data::DatasetPtr> named_evals;
  bool has_eval() const { return eval != nullptr || !named_evals.empty(); }
};

struct TrainerOptions {
  std::string input_name;   // recipe's `input_name` for plain layer models
  std::string recipe_path;  // copied into checkpoints as recipe.lua
  data::Collator collator;  // empty = default
  bool collator_thread_safe = false;  // may the collator run on data worker threads
  // Data parallelism: the ranks' communicator (null = a single process) and the mode.
  std::shared_ptr<dist::Communicator> comm;
  dist::ParallelConfig parallel;
  int local_rank = 0;  // this process's rank on its node (save_on_each_node, log_on_each_node)
};

struct TrainOutput {
  int64_t global_step = 0;
  double training_loss = 0.0;
  nlohmann::json metrics;
};

struct PredictionOutput {
  at::Tensor predictions, label_ids;  // undefined when not collected
  nlohmann::json metrics;
  int64_t num_samples = 0;
};

// The checks HF makes when a Trainer is built (eval strategy without eval data, batched
// metrics without compute_metrics); `runner check` runs them too.
void validate_setup(const TrainingArguments& args, const Datasets& datasets, const Hooks& hooks);

class Trainer {
 public:
  Trainer(TrainingArguments args, models::ModulePtr model, Datasets datasets, std::shared_ptr<Hooks> hooks,
          std::vector<std::shared_ptr<Callback>> callbacks, TrainerOptions options = {});
  ~Trainer();

  // resume_from_checkpoint comes from args (true = latest in output_dir, or a path).
  TrainOutput train();
  // Every eval dataset; metrics prefixed eval_ (eval_<name>_ for named sets).
  nlohmann::json evaluate();
  PredictionOutput predict();  // datasets.test, prefix test_
  // model.safetensors in `dir` (default output_dir), written atomically.
  void save_model(const std::string& dir = "");
  void save_state();  // trainer_state.json in output_dir

  const TrainerState& state() const { return state_; }
  const TrainingArguments& args() const { return args_; }
  models::Module& model() { return *model_; }
  const DevicePlan& device() const { return device_; }
  const LossScaler* loss_scaler() const { return scaler_.get(); }
  models::ModulePtr model_ptr() const { return model_; }
  // Whether this process writes output files: rank 0, or each node's first process with
  // save_on_each_node (HF should_save).
  bool should_write() const;
  // Training ended early on a stop signal with a checkpoint: the run is not finished, so no
  // final model, evaluation or prediction follows (resume from the checkpoint instead).
  bool preempted() const { return preempted_; }

 private:
  // training (trainer.cpp)
  void create_optimizer();
  void create_scheduler();  // needs state_.max_steps
  // auto_find_batch_size (batch_size_finder.cpp): the largest per-device batch, halving from
  // per_device_train_batch_size (or a resumed checkpoint's), with which one training
  // micro-step fits on every rank.
  int64_t find_batch_size(const std::string& resume_checkpoint);
  // The micro-step's loss weighted as in its backward (0-dim fp64, on the device).
  at::Tensor training_step(const Batch& batch, LossContext& ctx);
  // The global gradient norm before clipping (0-dim, on the device).
  at::Tensor clip_gradients();
  // bf16 / fp16 autocast on the model's device around forward and loss.
  AutocastGuard autocast() const;
  // A micro-batch on the device (pinned host memory → non-blocking copy). The host batch's
  // ids are checked against the model's tables first: a bad id on a GPU is a device-side
  // assert that poisons the CUDA context, on the host it is one line.
  Batch on_device(const Batch& batch) const {
    if (model_) models::check_id_ranges(*model_, batch);
    return device::to_device(batch, device_);
  }
  void maybe_log_save_evaluate(const at::Tensor& grad_norm, double lr);
  void agree_on_control();  // OR the control flags over ranks
  void log(nlohmann::json logs, bool with_speed = false);
  LossResult compute_loss(const Batch& batch, LossContext& ctx);
  double current_lr() const;
  int64_t count_input_tokens(const Batch& batch) const;
  std::string main_input_name(const data::Dataset& ds) const;
  // `shard`: under data parallelism, this rank's slice of every global batch.
  data::DataLoader make_loader(const data::DatasetPtr& ds, bool train, int64_t batch_size, bool shard) const;

  // evaluation (evaluate.cpp)
  PredictionOutput evaluation_loop(const data::DatasetPtr& ds, const std::string& prefix, bool prediction_loss_only);
  PredictionResult prediction_step(const Batch& batch, bool prediction_loss_only);
  at::Tensor generate_predictions(const Batch& batch);  // predict_with_generate (generate_eval.cpp)
  nlohmann::json run_evaluation(bool from_training);
  void update_best_metric(const nlohmann::json& metrics, bool& is_new_best);

  // checkpoints (checkpoint.cpp)
  void save_checkpoint();
  nlohmann::json stateful_callbacks() const;  // HF's TrainerState.stateful_callbacks: TrainerControl + stateful callbacks
  std::string resume_checkpoint_path() const;
  void load_checkpoint(const std::string& dir);
  void rotate_checkpoints();
  void remove_checkpoint(const std::string& dir) const;  // a failure is reported, not fatal
  void warn_if_another_run(const std::string& checkpoint_dir) const;
  // nonfinite_policy.cpp: false = skip this optimizer step; throws for "stop".
  bool nonfinite_step_allowed(const at::Tensor& grad_norm);
  void remove_stale_shard_dirs() const;
  void delete_all_but_best_checkpoint();
  void load_best_model();
  void restore_pending_rng();
  // full_determinism: seeds the RNG for micro-step `micro` of this window from (seed, step,
  // slice = micro · world + rank), so a slice's dropout does not depend on the world size.
  void seed_slice(int64_t micro);

  TrainingArguments args_;
  models::ModulePtr model_;
  Datasets datasets_;
  std::shared_ptr<Hooks> hooks_;
  TrainerOptions options_;
  CallOptions call_;
  CallbackHandler callbacks_;
  TrainerState state_;
  TrainerControl control_;
  MemoryTracker memory_;
  DevicePlan device_;                  // where parameters, gradients and batches live
  std::unique_ptr<LossScaler> scaler_;  // fp16 only

  std::unique_ptr<io::DirLock> output_lock_;  // rank 0: held for the Trainer's lifetime
  std::unique_ptr<dist::DataParallel> dp_;
  std::unique_ptr<optim::FlatParams> flat_;
  std::unique_ptr<optim::Optimizer> optimizer_;
  std::unique_ptr<optim::Scheduler> scheduler_;
  std::vector<double> base_lrs_;

  // Loss bookkeeping between log events (HF tr_loss / _total_loss_scalar), checkpointed so
  // a resumed run logs exactly what the uninterrupted one did.
  LossTracker losses_;
  int64_t last_logged_step_ = 0;
  std::chrono::steady_clock::time_point train_start_;
  bool in_training_ = false;
  bool warned_generation_length_ = false;  // predict_with_generate: prompts at generation_max_length
  bool preempted_ = false;  // a stop signal (stop_request.h) ended training with a checkpoint
  double data_wait_seconds_ = 0;  // time the training loop waited for batches
  bool lockstep_dummy_ = false;   // ZeRO-3: this micro-step's batch is a zero-weight stand-in
  nlohmann::json pending_rng_;  // a resumed run's RNG state, applied once the data skip is done
};

}  // namespace runner::train
