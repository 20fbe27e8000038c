#include "runtime/train/trainer.h"

#include <cmath>
#include <cstdlib>

#include <ATen/Context.h>
#include <ATen/Parallel.h>

#include "runtime/config/deepspeed_config.h"
#include "runtime/core/errors.h"
#include "runtime/core/stop_request.h"
#include "runtime/core/text.h"
#include "runtime/device/gpu_info.h"
#include "runtime/device/out_of_memory.h"
#include "runtime/io/dir_lock.h"
#include "runtime/models/generation.h"
#include "runtime/train/shared_folder_check.h"
#include "runtime/log/log.h"
#include "runtime/train/batch_size_finder.h"
#include "runtime/train/gradient_checkpointing.h"
#include "runtime/train/optimization.h"
#include "runtime/train/stream_training.h"
#include "runtime/train/training_plan.h"

namespace runner::train {

using nlohmann::json;

namespace {
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
double round_to(double v, int digits) {
  const double scale = std::pow(10.0, digits);
  return std::round(v * scale) / scale;
}
}  // namespace

void validate_setup(const TrainingArguments& args, const Datasets& datasets, const Hooks& hooks) {
  if (args.eval_strategy != "no" && !datasets.has_eval())
    throw RecipeError("eval_strategy is \"" + args.eval_strategy + "\" but the recipe has no eval dataset; set eval_strategy = \"no\" or add datasets.eval");
  if (args.batch_eval_metrics && !hooks.has_compute_metrics())
    throw RecipeError("batch_eval_metrics needs a compute_metrics(p, compute_result) hook");
}

namespace {

// fp16 mixed precision scales the loss over float32 trainable weights; HF refuses float16 ones
// (torch's GradScaler: "Attempting to unscale FP16 gradients"), whose scaled gradients overflow
// where their float32 sum would not, and whose updates round away.
void check_fp16_master_weights(const TrainingArguments& args, const models::Module* model) {
  if (!args.fp16 || !model) return;
  for (const auto& [name, p] : model->named_parameters())
    if (p.requires_grad() && p.scalar_type() == at::kHalf)
      throw ArgumentError("args.fp16: the trainable parameter '" + name +
                          "' is float16, and fp16 mixed precision trains float32 weights (torch's GradScaler refuses float16 gradients): "
                          "load the model in float32 (from_pretrained's dtype), freeze it (LoRA), or use bf16");
}

}  // namespace

Trainer::Trainer(TrainingArguments args, models::ModulePtr model, Datasets datasets, std::shared_ptr<Hooks> hooks,
                 std::vector<std::shared_ptr<Callback>> callbacks, TrainerOptions options)
    : args_(std::move(args)),
      model_(std::move(model)),
      datasets_(std::move(datasets)),
      hooks_(hooks ? std::move(hooks) : std::make_shared<Hooks>()),
      options_(std::move(options)),
      callbacks_(args_, std::move(callbacks)),
      memory_(!args_.skip_memory_metrics),
      dp_(std::make_unique<dist::DataParallel>(options_.comm, options_.parallel)),
      ctx_{args_, options_, model_, *hooks_, call_, *dp_, device_, callbacks_, memory_, loop_, opt_},
      checkpoints_(ctx_),
      steps_(ctx_, [this] { checkpoints_.save(); checkpoints_.wait_for_save(); }),  // committed before a nonfinite stop
      evaluator_(ctx_, datasets_) {
  if (dp_->rank() == 0) {
    // One run per output folder; holding it, leftovers of a crashed save can go.
    output_lock_ = std::make_unique<io::DirLock>(args_.output_dir);
    if (const int n = io::sweep_temporaries(args_.output_dir))
      log::info("Removed " + std::to_string(n) + " leftover(s) of an interrupted save from " + args_.output_dir);
  }
  // On a folder the nodes share, the node leaders would write one checkpoint folder at once
  // (and race to rename it into place): rank 0 writes it once instead. Sharded checkpoints
  // need a folder the nodes share.
  check_output_dir_sharing(args_, *dp_, options_.local_rank);
  check_fp16_master_weights(args_, model_.get());
  device_ = device::resolve_device(args_, options_.local_rank);
  memory_.set_device(device_.device);
  memory_.start("init");
  // HF moves the model once, in Trainer.__init__. Weights still in their files (from_pretrained)
  // stay there until create_optimizer reads them into the training buffers (parameter_store.h).
  if (model_) model_->to(device_.device);
  check_activation_offload(args_);
  // HF: model.gradient_checkpointing_enable() in Trainer.train.
  if (model_ && args_.gradient_checkpointing) enable_gradient_checkpointing(args_, *model_, device_.is_cuda());
  // HF Seq2SeqTrainer: args.generation_config replaces model.generation_config, checked now
  // (also without a model yet: model_init's gets it in begin_training).
  if (args_.generation_config) generation_config_json_ = models::load_generation_config(*args_.generation_config).dump();
  if (model_ && args_.generation_config) model_->set_generation_config_json(generation_config_json_);
  if (model_ && args_.predict_with_generate && !model_->can_generate())
    throw ArgumentError("args.predict_with_generate: this model (" + model_->type_name() + ") cannot generate (models.gpt, models.llama, models.from_pretrained)");
  if (args_.fp16) opt_.scaler = std::make_unique<LossScaler>(config::resolve_loss_scaler(args_, dp_->world()));
  if (args_.torch_empty_cache_steps && !device_.is_cuda())
    log::warn("torch_empty_cache_steps has no effect on the CPU (there is no device cache to empty)");
  loop_.state.is_world_process_zero = dp_->rank() == 0;
  loop_.state.is_local_process_zero = options_.local_rank == 0;
  call_.input_name = options_.input_name;
  // HF: args.label_names, else the model class's (question answering: start and end positions).
  call_.label_names = args_.label_names.is_null() && model_ ? model_->label_names() : args_.label_field_names();
  call_.remove_unused_columns = args_.remove_unused_columns;
  call_.label_smoothing = args_.label_smoothing_factor;
  if (args_.full_determinism) {  // deterministic kernels: resolve_device
    // Reductions split work by thread, so their rounding depends on the thread count; one
    // thread per rank makes results independent of the world size (OMP_NUM_THREADS wins).
    const char* env = std::getenv("OMP_NUM_THREADS");
    if (!env || std::atoi(env) <= 0) at::set_num_threads(1);
  }
  at::manual_seed(static_cast<uint64_t>(args_.seed));  // HF set_seed: dropout and any later init
  validate_setup(args_, datasets_, *hooks_);
  json init;
  memory_.stop("init", init);
  callbacks_.fire(Event::kInitEnd, loop_.state, loop_.control);
}

Trainer::~Trainer() = default;

struct Trainer::Plan {
  data::DataLoader loader;
  TrainingPlan plan;
  int64_t steps_in_epoch = 0;  // global batches per epoch
  int64_t first_epoch = 0, skip_batches = 0;  // where a resumed run picks up
  std::string resume;
};

TrainOutput Trainer::train() {
  struct NoiseOff {  // HF deactivates NEFTune at the end of train(); runner on an error too
    std::unique_ptr<NeftuneNoise>& noise;
    ~NoiseOff() { noise.reset(); }
  } noise_off{neftune_};
  const bool tracking = memory_.start("train");
  Plan run = begin_training();
  at::Tensor last_grad_norm;  // the last optimizer step's, for the epoch-end log
  // A loop that auto_find_batch_size starts over (start_over_smaller) begins here again, as HF
  // reruns its whole inner training loop: train-begin callbacks, eval_on_start.
  do {
    callbacks_.fire(Event::kTrainBegin, loop_.state, loop_.control);
    offload_report_.start(args_);  // after the batch-size search's trial steps
    if (args_.eval_on_start && run.resume.empty()) evaluator_.run_evaluation(/*from_training=*/false);
  } while (!run_epochs(run, last_grad_norm));
  data_wait_seconds_ = run.loader.wait_seconds();
  TrainOutput out = finish_training(run, tracking);
  loop_.stream = nullptr;  // the loader goes with `run`
  return out;
}

bool Trainer::run_epochs(Plan& run, at::Tensor& last_grad_norm) {
  const int64_t GA = args_.gradient_accumulation_steps;
  try {
    for (int64_t epoch = run.first_epoch; epoch < run.plan.num_train_epochs; ++epoch) {
      run.loader.set_epoch(epoch);
      callbacks_.fire(Event::kEpochBegin, loop_.state, loop_.control);
      // The RNG state is restored after the skip, so skipping cannot perturb it (HF does the same).
      if (epoch == run.first_epoch) checkpoints_.restore_pending_rng();
      const int64_t first = epoch == run.first_epoch ? run.skip_batches : 0;
      const int64_t remainder = run.steps_in_epoch % GA == 0 ? GA : run.steps_in_epoch % GA;  // a short last window
      const int64_t windows = run.steps_in_epoch / GA + (remainder < GA ? 1 : 0);
      for (int64_t w = first / GA; w < windows && !loop_.control.should_epoch_stop && !loop_.control.should_training_stop; ++w) {
        profiler_.step_begin(loop_.state.global_step + 1);  // its batches' loading included, as in torch.profiler's loops
        const Window window = steps_.load(run.loader, w * GA, w == windows - 1 ? remainder : GA);
        for (size_t i = 0; i < window.size(); ++i) {
          if (i == 0) callbacks_.fire(Event::kStepBegin, loop_.state, loop_.control);
          steps_.run(run.loader, window, i);
          if (i + 1 < window.size()) callbacks_.fire(Event::kSubstepEnd, loop_.state, loop_.control);
        }
        const StepOutcome step = steps_.finish();
        profiler_.step_end(loop_.state.global_step + 1);  // after the optimizer step, before logging, evaluation and saving
        last_grad_norm = step.grad_norm;
        end_step(step, epoch, w * GA + static_cast<int64_t>(window.size()), run.steps_in_epoch);
        offload_report_.step_done(loop_.state.global_step);
      }
      callbacks_.fire(Event::kEpochEnd, loop_.state, loop_.control);
      agree_on_control();
      maybe_log_save_evaluate(last_grad_norm, opt_.current_lr());  // HF: the epoch's last step's norm
      if (loop_.control.should_training_stop) break;
    }
  } catch (const std::exception& e) {  // a Lua hook's or a TorchScript model's arrives wrapped, as HookError / RecipeError
    if (!start_over_smaller(e, run)) throw;
    return false;
  }
  return true;
}

bool Trainer::start_over_smaller(const std::exception& e, Plan& run) {
  const int64_t failed = args_.per_device_train_batch_size;
  // One process only: on several, the other ranks wait in a collective this rank left.
  // After an optimizer step began, the weights (and schedule) moved: starting over is no
  // longer the run the smaller size would have been, so the error stands, as documented.
  if (!args_.auto_find_batch_size || !device::is_out_of_memory(e) || dp_->world() > 1 || steps_.optimizer_stepped() || failed <= 1 ||
      !args_.profile_steps.empty())
    return false;
  log::warn("auto_find_batch_size: per_device_train_batch_size = " + std::to_string(failed) +
            " ran out of memory in the first training step; starting over with " + std::to_string(failed / 2) +
            " (" + device::out_of_memory_summary(e) + ")");
  steps_.reset();
  dp_->zero_grad();  // what the failed window accumulated
  hooks_->collect_garbage();
  device::empty_gpu_cache();
  loop_start_rng_->restore();
  args_.per_device_train_batch_size = failed / 2;
  log::info("auto_find_batch_size: training with per_device_train_batch_size = " + std::to_string(failed / 2) + " (started from " +
            std::to_string(batch_search_start_) + ")");
  run = plan_run();
  return true;
}

Trainer::Plan Trainer::begin_training() {
  loop_.train_start = Clock::now();
  at::manual_seed(static_cast<uint64_t>(args_.seed));  // HF: seed, then model_init's fresh model
  const models::ModulePtr fresh = hooks_->model_init();
  if (fresh) model_ = fresh;
  if (!model_) throw RecipeError("the recipe has no model (give `model` or `model_init`)");
  model_->to(device_.device);
  // model_init's model is new: it needs what the constructor did to a recipe's `model`.
  if (fresh && args_.gradient_checkpointing) enable_gradient_checkpointing(args_, *model_, device_.is_cuda());
  if (fresh) check_fp16_master_weights(args_, model_.get());
  if (fresh && args_.label_names.is_null()) call_.label_names = model_->label_names();
  if (fresh && !generation_config_json_.empty()) model_->set_generation_config_json(generation_config_json_);
  // HF activates NEFTune on the final model, after checkpointing and before the batch-size search.
  neftune_ = std::make_unique<NeftuneNoise>(args_.neftune_noise_alpha, model_.get());
  if (!datasets_.has_train()) throw RecipeError("training needs a train dataset (datasets.train)");
  const data::StreamPtr& stream = datasets_.train_stream;
  if (stream) check_stream_arguments(args_);
  // The optimizer (and its state) exists before the batch-size search, so a batch that
  // fits fits next to it; the schedule depends on the batch size, so it comes after.
  create_optimizer(ctx_);
  if (args_.auto_find_batch_size) args_.per_device_train_batch_size = find_batch_size(ctx_, steps_, datasets_.train, checkpoints_.resume_path(), &batch_search_start_);
  return plan_run();
}

Trainer::Plan Trainer::plan_run() {
  const data::StreamPtr& stream = datasets_.train_stream;
  const std::string resume = checkpoints_.resume_path();
  // Global batches per epoch: a rank whose slice of the last one is empty still takes part
  // in its collectives with an empty micro-batch. A stream's one epoch is the whole run (HF).
  const int64_t global_batch = args_.per_device_train_batch_size * dp_->world();
  const int64_t n_train = stream ? args_.max_steps * args_.gradient_accumulation_steps * global_batch : datasets_.train->size();
  data::DataLoader loader = stream ? make_stream_loader(ctx_, stream, args_.max_steps * args_.gradient_accumulation_steps)
                                   : ctx_.make_loader(datasets_.train, /*train=*/true, args_.per_device_train_batch_size, /*shard=*/true);
  loop_.stream = loader.stream();
  const int64_t steps_in_epoch = dp_->world() == 1 || stream ? loader.num_batches()
                                 : args_.dataloader_drop_last ? n_train / global_batch
                                                              : (n_train + global_batch - 1) / global_batch;
  const TrainingPlan plan = plan_training(args_, steps_in_epoch, n_train, dp_->world());
  TrainerState& state = loop_.state;
  state = TrainerState{};
  // Which process this is survives the reset (callbacks and report_to read it).
  state.is_world_process_zero = dp_->rank() == 0;
  state.is_local_process_zero = options_.local_rank == 0;
  state.max_steps = plan.max_steps;
  state.num_train_epochs = plan.num_train_epochs;
  state.train_batch_size = args_.per_device_train_batch_size;
  state.logging_steps = TrainerState::resolve_steps(args_.logging_steps, plan.max_steps);
  // HF: eval_steps defaults to logging_steps only under eval_strategy "steps"; otherwise the
  // state keeps TrainerState's 500 unless eval_steps was given.
  if (args_.eval_strategy == "steps" || args_.eval_steps)
    state.eval_steps = TrainerState::resolve_steps(args_.eval_steps.value_or(args_.logging_steps), plan.max_steps);
  state.stateful_callbacks = checkpoints_.stateful_callbacks();
  state.save_steps = TrainerState::resolve_steps(args_.save_steps, plan.max_steps);
  loop_.losses.reset(device_.device, /*rank_parts=*/!(args_.full_determinism && dp_->world() > 1));
  loop_.metrics.reset(/*rank_parts=*/true);
  loop_.last_logged_step = 0;
  create_scheduler(ctx_, plan.max_steps);
  if (!resume.empty()) {
    try {
      checkpoints_.load(resume);
    } catch (const nlohmann::json::exception& e) {  // a field the typed readers do not cover
      throw CheckpointError(std::string("malformed checkpoint metadata: ") + e.what(), resume);
    }
  }
  state.trial_params = options_.trial_params;  // HF: is_hyper_param_search and trial_params, also over a resumed state
  loop_.initial_global_step = state.global_step;
  loop_.initial_tokens_seen = state.num_input_tokens_seen;
  const int64_t first_epoch = state.global_step / plan.update_steps_per_epoch;
  const int64_t skip = args_.ignore_data_skip ? 0 : (state.global_step % plan.update_steps_per_epoch) * args_.gradient_accumulation_steps;
  if (stream && !resume.empty() && !args_.ignore_data_skip && first_epoch == 0) {
    // The stream continues where the checkpoint left it, instead of skipping batches.
    restore_stream_state(*loader.stream(), resume, dp_->rank(), dp_->world());
    if (loader.stream()->next_index() != skip)
      throw CheckpointError("stream_state.json is at batch " + std::to_string(loader.stream()->next_index()) + " but trainer_state.json at step " +
                            std::to_string(state.global_step) + " (" + std::to_string(skip) + " batches)", resume);
  }
  log_plan(plan, *model_, args_, device::device_string(device_.device));
  if (!resume.empty())
    log::info("  Resuming from " + resume + ": " + std::to_string(first_epoch) + " epochs done, skipping " + std::to_string(skip) +
              " batches of the current one");
  steps_.graph().start();
  // Where nothing reads the flat gradient before the step and no captured step will replay
  // (flat_params.h): an optimizer that takes tensor lists reads the gradients autograd made,
  // with no buffer at all; others get each window's first gradient written into the buffer,
  // not added to zeros. A replay reads the buffer the capture saw and runs no hooks, and
  // AccumulateGrad nodes kept alive from before a capture, on the default stream, make
  // capturing backward fail (PyTorch 2.11).
  if (dp_->flat_gradient_read_only_at_the_step() && !steps_.graph().enabled()) {
    // Only for an optimizer over these very parameters: optimizer offload's reads its own host
    // copy of the flat gradient.
    if (ctx_.opt.optimizer->takes_parameter_gradients() && &ctx_.opt.optimizer->params() == ctx_.opt.flat.get())
      ctx_.opt.flat->leave_grads_to_autograd();
    else ctx_.opt.flat->write_grads_on_first_accumulation();
  }
  steps_.decide_clipping_fold();
  profiler_.start(args_, dp_->rank(), device_.is_cuda());
  steps_.reset();
  dp_->zero_grad();
  if (args_.auto_find_batch_size) loop_start_rng_ = std::make_unique<GeneratorSnapshot>(device_.device);
  loop_.in_training = true;
  set_stop_point_active(true);
  return Plan{std::move(loader), plan, steps_in_epoch, first_epoch, skip, resume};
}

void Trainer::end_step(const StepOutcome& step, int64_t epoch, int64_t micro_batch, int64_t steps_in_epoch) {
  TrainerState& state = loop_.state;
  TrainerControl& control = loop_.control;
  state.global_step += 1;
  checkpoints_.check_background_save();  // save_async: a failed write stops the run here, as a synchronous save would have
  if (args_.torch_empty_cache_steps && state.global_step % *args_.torch_empty_cache_steps == 0) device::empty_gpu_cache();
  state.epoch = static_cast<double>(epoch) + static_cast<double>(micro_batch) / static_cast<double>(steps_in_epoch);
  callbacks_.fire(Event::kStepEnd, state, control);
  // Preemption (stop_request.h): this step is done; save and stop, on every rank at the same
  // step (agree_on_control votes on it too).
  if (stop_requested()) loop_.preempted = true;
  agree_on_control();
  if (loop_.preempted) {
    control.should_save = true;
    control.should_training_stop = true;
    if (!stop_requested()) request_stop("a stop signal on another rank");
  }
  maybe_log_save_evaluate(step.grad_norm, step.lr);
}

TrainOutput Trainer::finish_training(const Plan& run, bool tracking_memory) {
  TrainerState& state = loop_.state;
  loop_.in_training = false;
  profiler_.finish(state.global_step);
  steps_.graph().log_summary();
  checkpoints_.wait_for_save();  // save_async: the last checkpoint is committed before anything reads it or the run stops
  set_stop_point_active(false);
  if (loop_.preempted && dp_->rank() == 0)
    log::info("Stopped by " + stop_reason() + " after step " + std::to_string(state.global_step) + ": checkpoint saved to " +
              args_.output_dir + "/checkpoint-" + std::to_string(state.global_step));
  // ZeRO-3's parameters stay sharded, as DeepSpeed's and FSDP's do: evaluation and prediction
  // gather a unit at a time as in training, saving and loading too (DataParallel::visit_whole).
  if (args_.load_best_model_at_end) checkpoints_.load_best_model();  // every rank: collective under ZeRO-3
  loop_.losses.flush(*dp_);
  TrainOutput out;
  out.global_step = state.global_step;
  out.training_loss = loop_.losses.total() / std::max<double>(static_cast<double>(state.global_step), 0.001);
  const double runtime = seconds_since(loop_.train_start);
  json metrics;
  metrics["train_runtime"] = round_to(runtime, 4);
  if (runtime > 0) {  // this call's share of the planned samples: early stopping and resumes ran fewer steps
    const double steps = static_cast<double>(state.global_step - loop_.initial_global_step);
    metrics["train_samples_per_second"] = round_to(run.plan.num_train_samples * steps / std::max<double>(state.max_steps, 1) / runtime, 3);
    metrics["train_steps_per_second"] = round_to(steps / runtime, 3);
  }
  metrics["total_flos"] = state.total_flos;
  metrics["train_loss"] = out.training_loss;
  metrics["epoch"] = state.epoch;  // HF's train metrics carry it (Trainer.log adds it), and the tokens seen
  if (args_.include_num_input_tokens_seen != "no") metrics["num_input_tokens_seen"] = state.num_input_tokens_seen;
  // Time spent waiting for batches (building them, or for the prefetch workers).
  metrics["train_data_wait_seconds"] = round_to(data_wait_seconds_, 4);
  if (loop_.stream) {  // this rank's reads from a data.stream's shards; skipped: read only to reach a resumed position
    metrics["train_stream_records_read"] = loop_.stream->records_read();
    metrics["train_stream_records_skipped"] = loop_.stream->records_skipped();
  }
  if (dp_->world() > 1 || dp_->config().zero_stage > 0 || dp_->backend() == "nccl") {
    const int64_t state_bytes = steps_.state_bytes();
    metrics["model_state_bytes"] = state_bytes >= 0 ? state_bytes : dp_->model_state_bytes(*opt_.optimizer);  // no step ran: now
    // Seconds and bytes this rank spent in collectives over the run (bucket waits included).
    metrics["train_comm_seconds"] = round_to(dp_->comm_seconds(), 4);
    metrics["train_comm_bytes"] = dp_->comm_bytes();
    if (dp_->config().zero_stage == 3) {  // how much of ZeRO-3's gathering prefetch hid
      const auto [gathers, prefetched] = dp_->gather_counts();
      metrics["train_unit_gathers"] = gathers;
      metrics["train_unit_gathers_prefetched"] = prefetched;
    }
  }
  if (tracking_memory) memory_.stop("train", metrics);
  metrics.update(loop_.metrics.flush(*dp_));  // compute_loss's values since the last log, as TRL's final log has them
  out.metrics = metrics;
  ctx_.log(metrics);
  checkpoints_.delete_all_but_best();
  callbacks_.fire(Event::kTrainEnd, state, loop_.control);
  return out;
}

void Trainer::agree_on_control() {
  if (dp_->world() == 1) return;
  // Callbacks may decide differently on different ranks (a rank-local condition): if any
  // rank wants to stop, log, evaluate or save, all do, so none waits alone in a collective.
  TrainerControl& c = loop_.control;
  bool* flags[] = {&c.should_training_stop, &c.should_epoch_stop, &c.should_save, &c.should_evaluate, &c.should_log, &loop_.preempted};
  std::vector<double> votes;
  for (bool* f : flags) votes.push_back(*f ? 1.0 : 0.0);
  dp_->sum(votes);
  for (size_t i = 0; i < votes.size(); ++i) *flags[i] = votes[i] > 0;
}

void Trainer::maybe_log_save_evaluate(const at::Tensor& grad_norm, double lr) {
  TrainerState& state = loop_.state;
  TrainerControl& control = loop_.control;
  if (control.should_log && state.global_step > loop_.last_logged_step) {
    json logs;
    const double steps = static_cast<double>(state.global_step - loop_.last_logged_step);
    logs["loss"] = loop_.losses.flush(*dp_) / steps;  // HF v5: unrounded
    // HF v5 logs the pre-clip norm whether or not clipping is on, NaN included.
    if (grad_norm.defined()) logs["grad_norm"] = grad_norm.item<double>();
    logs["learning_rate"] = lr;
    logs.update(loop_.metrics.flush(*dp_));  // compute_loss's named values (DPO's rewards/...)
    loop_.last_logged_step = state.global_step;
    ctx_.log(logs, /*with_speed=*/true);
  }
  if (control.should_evaluate) {
    const json metrics = evaluator_.run_evaluation(/*from_training=*/true);
    bool is_new_best = false;
    if (args_.metric_for_best_model) evaluator_.update_best_metric(metrics, is_new_best);
    if (args_.save_strategy == "best") control.should_save = is_new_best;
  }
  if (control.should_save) {
    checkpoints_.save();
    callbacks_.fire(Event::kSave, state, control);
  }
}

}  // namespace runner::train
