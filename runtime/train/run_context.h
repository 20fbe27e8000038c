// What the Trainer's collaborators share, explicitly. The Trainer owns every piece; the
// StepRunner (one optimizer step), the Evaluator (evaluation, prediction) and the
// Checkpointer (checkpoint-N folders, final outputs) each hold a RunContext and nothing
// else of the Trainer, so what a collaborator reads and changes is visible in its signature.
//
//   LoopState      what the training loop carries from step to step (and a checkpoint saves)
//   Optimization   the flat parameters, the optimizer, the schedule and fp16's scaler
//   RunContext     the above, plus the run's fixed pieces: arguments, model, hooks, the
//                  data-parallel engine, the device, the callbacks
#pragma once
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/core/trainer_state.h"
#include "runtime/core/training_args.h"
#include "runtime/data/dataloader.h"
#include "runtime/device/autocast.h"
#include "runtime/device/device.h"
#include "runtime/dist/data_parallel.h"
#include "runtime/models/module.h"
#include "runtime/optim/flat_params.h"
#include "runtime/optim/optimizer.h"
#include "runtime/optim/scheduler.h"
#include "runtime/train/callback_handler.h"
#include "runtime/train/hooks.h"
#include "runtime/train/loss_scaler.h"
#include "runtime/train/loss_tracker.h"
#include "runtime/train/metric_means.h"
#include "runtime/train/memory_tracker.h"
#include "runtime/train/model_call.h"

namespace runner::data {
class Stream;
class StreamLoader;
using StreamPtr = std::shared_ptr<const Stream>;
}  // namespace runner::data

namespace runner::train {

using device::AutocastGuard;
using device::DevicePlan;
using Clock = std::chrono::steady_clock;

struct Datasets {
  data::DatasetPtr train, eval, test;
  data::StreamPtr train_stream;  // datasets.train = data.stream{...} (then `train` is null)
  // A table of eval datasets: each is evaluated with the prefix eval_<name> (HF dict form).
  std::map<std::string, data::DatasetPtr> named_evals;
  bool has_eval() const { return eval != nullptr || !named_evals.empty(); }
  bool has_train() const { return train != nullptr || train_stream != nullptr; }
};

struct TrainerOptions {
  std::string input_name;   // recipe's `input_name` for plain layer models
  std::string recipe_path;  // copied into checkpoints as recipe.lua
  data::Collator collator;  // empty = default
  bool collator_thread_safe = false;  // may the collator run on data worker threads
  // Data parallelism: the ranks' communicator (null = a single process) and the mode.
  std::shared_ptr<dist::Communicator> comm;
  dist::ParallelConfig parallel;
  // A DeepSpeed config's scheduler: factor of learning_rate at (step, max_steps); empty = the
  // arguments' lr_scheduler_type.
  std::function<double(int64_t, int64_t)> lr_factor;
  int local_rank = 0;  // this process's rank on its node (save_on_each_node, log_on_each_node)
  nlohmann::json trial_params;  // runner search: the trial's parameters, for trainer_state.json (null: not a search)
};

// What the training loop carries from step to step: HF's TrainerState and TrainerControl
// (what callbacks see), the loss since the last log (HF tr_loss, checkpointed so a resumed run
// logs what the uninterrupted one did), a resumed run's generator states waiting for the data
// skip, and whether a stop signal ended the run.
struct LoopState {
  TrainerState state;
  TrainerControl control;
  LossTracker losses;
  MetricMeans metrics;  // compute_loss's named values since the last log
  int64_t last_logged_step = 0;
  nlohmann::json pending_rng;  // applied once the resumed epoch's skipped batches are passed
  data::StreamLoader* stream = nullptr;  // training from a data.stream: its position goes into checkpoints
  bool preempted = false;      // a stop signal (stop_request.h) ended training with a checkpoint
  bool in_training = false;
  Clock::time_point train_start;
  // Where this train() call started (after a resume): its speed metrics count this call's
  // steps, samples and tokens over its runtime (HF's _initial_global_step).
  int64_t initial_global_step = 0;
  int64_t initial_tokens_seen = 0;
};

// The optimizer side of a run: the trainable parameters' flat buffers, the optimizer over
// them, the learning-rate schedule and fp16's loss scaler (optimization.cpp builds them).
struct Optimization {
  std::unique_ptr<optim::FlatParams> flat;
  std::unique_ptr<optim::Optimizer> optimizer;
  std::unique_ptr<optim::Scheduler> scheduler;
  std::vector<double> base_lrs;
  std::unique_ptr<LossScaler> scaler;  // fp16 only
  double current_lr() const { return optimizer ? optimizer->lr(0) : 0.0; }
};

struct RunContext {
  TrainingArguments& args;
  const TrainerOptions& options;
  models::ModulePtr& model;  // model_init may replace it when training starts
  Hooks& hooks;
  const CallOptions& call;
  dist::DataParallel& dp;
  const DevicePlan& device;
  CallbackHandler& callbacks;
  MemoryTracker& memory;
  LoopState& loop;
  Optimization& opt;

  // Whether this process writes output files: rank 0, or each node's first process with
  // save_on_each_node (HF should_save).
  bool should_write() const;
  // bf16 / fp16 autocast on the model's device around forward and loss.
  AutocastGuard autocast() const;
  // Autocast off on the model's device (backward called from inside a forward's scope).
  AutocastGuard autocast_off() const;
  // A micro-batch on the device (pinned host memory → non-blocking copy). The host batch's
  // ids are checked against the model's tables first: a bad id on a GPU is a device-side
  // assert that poisons the CUDA context, on the host it is one line.
  data::Batch on_device(const data::Batch& host) const;
  // The recipe's compute_loss, else the model's own loss (HF compute_loss); in training the
  // default asks for the loss only, so a causal LM may skip its logits (models/loss_only.h).
  LossResult compute_loss(const data::Batch& batch, LossContext& ctx) const;
  // One warning when a recipe's loss hook makes label_smoothing_factor moot.
  void warn_if_label_smoothing_unused(const char* hook) const;
  mutable bool label_smoothing_warned = false;
  // `shard`: under data parallelism, this rank's slice of every global batch.
  data::DataLoader make_loader(const data::DatasetPtr& ds, bool train, int64_t batch_size, bool shard) const;
  std::string main_input_name(const data::Dataset& ds) const;
  // HF Trainer.log: `logs` (with the epoch, and the token counts when asked) into
  // log_history, then on_log. `with_speed`: add the run's throughput so far.
  void log(nlohmann::json logs, bool with_speed = false);
};

}  // namespace runner::train
