// The Trainer: HF Trainer's train / evaluate / predict as a short loop with collaborators. It
// owns the run's pieces (run_context.h) and wires them together; the work is done by
//
//   StepRunner     step_runner.h    one optimizer step: the window of micro-batches, forward,
//                                   backward, the optimizer step
//   Evaluator      evaluator.h      evaluation and prediction loops, metrics, best metric
//   Checkpointer   checkpointer.h   checkpoint-N folders, resuming, rotation, final outputs
//   create_optimizer / create_scheduler (optimization.h), find_batch_size (batch_size_finder.h)
//   CallbackHandler (callback_handler.h): the callbacks, in HF's order
//   StepProfiler   step_profiler.h  profile_steps: the PyTorch profiler over a few steps
//
// User code is reached only through Hooks and Callbacks.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/core/callback.h"
#include "runtime/train/checkpointer.h"
#include "runtime/train/evaluator.h"
#include "runtime/train/generator_snapshot.h"
#include "runtime/train/gradient_checkpointing.h"
#include "runtime/train/neftune.h"
#include "runtime/train/run_context.h"
#include "runtime/train/step_profiler.h"
#include "runtime/train/step_runner.h"

namespace runner::io {
class DirLock;
}  // namespace runner::io

namespace runner::train {

struct TrainOutput {
  int64_t global_step = 0;
  double training_loss = 0.0;
  nlohmann::json metrics;
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
  nlohmann::json evaluate() { return evaluator_.evaluate(); }
  PredictionOutput predict() { return evaluator_.predict(); }  // datasets.test, prefix test_
  // model.safetensors in `dir` (default output_dir), written atomically.
  void save_model(const std::string& dir = "") { checkpoints_.save_model(dir); }
  void save_state() { checkpoints_.save_state(); }  // trainer_state.json in output_dir

  const TrainerState& state() const { return loop_.state; }
  const TrainingArguments& args() const { return args_; }
  models::Module& model() { return *model_; }
  const DevicePlan& device() const { return device_; }
  const LossScaler* loss_scaler() const { return opt_.scaler.get(); }
  models::ModulePtr model_ptr() const { return model_; }
  // Whether this process writes output files: rank 0, or each node's first process with
  // save_on_each_node (HF should_save).
  bool should_write() const { return ctx_.should_write(); }
  // Training ended early on a stop signal with a checkpoint: the run is not finished, so no
  // final model, evaluation or prediction follows (resume from the checkpoint instead).
  bool preempted() const { return loop_.preempted; }

 private:
  struct Plan;  // this train() call's epochs, windows and starting point (trainer.cpp)
  Plan begin_training();
  // begin_training's second half: the loader, plan, state and schedule for the current batch
  // size, and where a resumed run picks up.
  Plan plan_run();
  // The epochs; false when they stopped for start_over_smaller (run is then re-planned).
  bool run_epochs(Plan& run, at::Tensor& last_grad_norm);
  // auto_find_batch_size on one process: an out-of-memory error before the first optimizer
  // step halves the batch and starts the loop over; false when it cannot (the error stands).
  bool start_over_smaller(const std::exception& e, Plan& run);
  void end_step(const StepOutcome& step, int64_t epoch, int64_t micro_batch, int64_t steps_in_epoch);
  void maybe_log_save_evaluate(const at::Tensor& grad_norm, double lr);
  void agree_on_control();  // OR the control flags over ranks
  TrainOutput finish_training(const Plan& plan, bool tracking_memory);

  // The run's pieces (run_context.h); ctx_ refers to them, the collaborators hold ctx_.
  TrainingArguments args_;
  models::ModulePtr model_;
  Datasets datasets_;
  std::shared_ptr<Hooks> hooks_;
  TrainerOptions options_;
  CallOptions call_;
  CallbackHandler callbacks_;
  MemoryTracker memory_;
  DevicePlan device_;  // where parameters, gradients and batches live
  std::unique_ptr<io::DirLock> output_lock_;  // rank 0: held for the Trainer's lifetime
  std::unique_ptr<dist::DataParallel> dp_;
  LoopState loop_;
  Optimization opt_;
  RunContext ctx_;
  Checkpointer checkpoints_;
  StepRunner steps_;
  Evaluator evaluator_;
  OffloadReport offload_report_;  // activation_offload's one log line
  std::unique_ptr<NeftuneNoise> neftune_;  // neftune_noise_alpha: on the final model, for train()
  std::string generation_config_json_;      // args.generation_config, read and checked when built
  StepProfiler profiler_;  // profile_steps
  double data_wait_seconds_ = 0;  // time the training loop waited for batches
  int64_t batch_search_start_ = 0;  // auto_find_batch_size: the size the search started from
  std::unique_ptr<GeneratorSnapshot> loop_start_rng_;  // auto_find_batch_size: the generators as the loop starts
};

}  // namespace runner::train
