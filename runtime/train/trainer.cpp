#include "runtime/train/trainer.h"

#include <cmath>
#include <cstdlib>

#include <ATen/Context.h>
#include <ATen/Parallel.h>

#include "runtime/core/errors.h"
#include "runtime/core/stop_request.h"
#include "runtime/io/dir_lock.h"
#include "runtime/log/log.h"
#include "runtime/models/activation_checkpoint.h"
#include "runtime/models/host_facts.h"
#include "runtime/config/deepspeed_config.h"
#include "runtime/device/gpu_info.h"
#include "runtime/device/out_of_memory.h"
#include "runtime/train/training_plan.h"

namespace runner::train {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

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

Trainer::Trainer(TrainingArguments args, models::ModulePtr model, Datasets datasets, std::shared_ptr<Hooks> hooks,
                 std::vector<std::shared_ptr<Callback>> callbacks, TrainerOptions options)
    : args_(std::move(args)),
      model_(std::move(model)),
      datasets_(std::move(datasets)),
      hooks_(hooks ? std::move(hooks) : std::make_shared<Hooks>()),
      options_(std::move(options)),
      callbacks_(args_, std::move(callbacks)),
      memory_(!args_.skip_memory_metrics),
      dp_(std::make_unique<dist::DataParallel>(options_.comm, options_.parallel)) {
  if (dp_->rank() == 0) {
    // One run per output folder; holding it, leftovers of a crashed save can go.
    output_lock_ = std::make_unique<io::DirLock>(args_.output_dir);
    if (const int n = io::sweep_temporaries(args_.output_dir))
      log::info("Removed " + std::to_string(n) + " leftover(s) of an interrupted save from " + args_.output_dir);
  }
  device_ = device::resolve_device(args_, options_.local_rank);
  memory_.set_device(device_.device);
  memory_.start("init");
  // HF moves the model once, in Trainer.__init__. Weights still in their files (from_pretrained)
  // stay there until create_optimizer reads them into the training buffers (deferred_weights.h).
  if (model_) model_->to(device_.device);
  if (model_ && args_.gradient_checkpointing) {
    // HF: model.gradient_checkpointing_enable() in Trainer.train.
    const int n = models::enable_gradient_checkpointing(*model_);
    if (n == 0)
      throw ArgumentError("args.gradient_checkpointing: this model (" + model_->type_name() +
                          ") has no blocks to checkpoint (built-in transformer blocks or nn.Sequential children)");
    log::info("Gradient checkpointing: " + std::to_string(n) + " modules recompute their activations in backward");
  }
  if (model_ && args_.predict_with_generate && !model_->can_generate())
    throw ArgumentError("args.predict_with_generate: this model (" + model_->type_name() + ") cannot generate (models.llama, models.from_pretrained)");
  if (args_.fp16) scaler_ = std::make_unique<LossScaler>(config::resolve_loss_scaler(args_, dp_->world()));
  if (args_.torch_empty_cache_steps && !device_.is_cuda())
    log::warn("torch_empty_cache_steps has no effect on the CPU (there is no device cache to empty)");
  state_.is_world_process_zero = dp_->rank() == 0;
  state_.is_local_process_zero = options_.local_rank == 0;
  call_.input_name = options_.input_name;
  call_.label_names = args_.label_field_names();
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
  callbacks_.fire(Event::kInitEnd, state_, control_);
}

Trainer::~Trainer() = default;

bool Trainer::should_write() const { return args_.save_on_each_node ? options_.local_rank == 0 : dp_->rank() == 0; }

data::DataLoader Trainer::make_loader(const data::DatasetPtr& ds, bool train, int64_t batch_size, bool shard) const {
  std::shared_ptr<const data::Sampler> sampler;
  const std::string strategy = train ? args_.train_sampling_strategy : "sequential";
  if (strategy == "random") {
    sampler = std::make_shared<data::RandomSampler>(ds->size(), args_.effective_data_seed());
  } else if (strategy == "group_by_length") {
    const int64_t mega = batch_size * args_.gradient_accumulation_steps;
    sampler = std::make_shared<data::LengthGroupedSampler>(data::example_lengths(*ds, args_.length_column_name, main_input_name(*ds)),
                                                           mega, args_.effective_data_seed());
  } else {
    sampler = std::make_shared<data::SequentialSampler>(ds->size());
  }
  // One global order sliced by rank, so what an optimizer step (or an evaluation batch)
  // sees does not depend on the world size.
  if (shard && dp_->world() > 1)
    sampler = std::make_shared<data::ShardedSampler>(sampler, batch_size, dp_->rank(), dp_->world(), args_.dataloader_drop_last);
  data::LoaderOptions o;
  o.batch_size = batch_size;
  o.drop_last = args_.dataloader_drop_last;
  o.collator = options_.collator;
  o.collator_thread_safe = options_.collator_thread_safe;
  o.num_workers = args_.dataloader_num_workers;
  o.prefetch_factor = args_.dataloader_prefetch_factor.value_or(2);
  o.pin_memory = device_.pin_memory;
  return data::DataLoader(ds, sampler, std::move(o));
}

std::string Trainer::main_input_name(const data::Dataset& ds) const {
  const auto fields = ds.fields();
  if (std::find(fields.begin(), fields.end(), "input_ids") != fields.end()) return "input_ids";
  if (!call_.input_name.empty()) return call_.input_name;
  for (const auto& f : fields)
    if (std::find(call_.label_names.begin(), call_.label_names.end(), f) == call_.label_names.end()) return f;
  return fields.empty() ? "" : fields.front();
}

LossResult Trainer::compute_loss(const Batch& batch, LossContext& ctx) {
  if (auto r = hooks_->compute_loss(*model_, batch, ctx)) return std::move(*r);
  return default_compute_loss(*model_, batch, call_);
}

at::Tensor Trainer::training_step(const Batch& batch, LossContext& ctx) {
  model_->train();
  // DESIGN.md contract: a loss is a mean over this micro-batch's items; weighting it by
  // micro_items / num_items_in_batch makes the summed gradients of a window equal to the
  // gradient of the mean over every item of the optimizer step.
  // average_tokens_across_devices = false (HF v4): num_items_in_batch is this rank's own
  // count and the ranks' gradients are averaged, not summed.
  const double share = args_.average_tokens_across_devices ? 1.0 : 1.0 / dp_->world();
  const double weight = ctx.micro_items == 0 ? 0.0
                                             : share * static_cast<double>(ctx.micro_items) / static_cast<double>(std::max<int64_t>(1, ctx.num_items_in_batch));
  const bool lockstep = lockstep_dummy_;
  // fp16: the loss is scaled up before backward so small gradients survive in fp16; the
  // gradients are scaled back down before clipping (clip_gradients).
  const double scale = scaler_ ? scaler_->scale() : 1.0;
  ctx.device = device_.device;
  dist::DataParallel* dp = dp_.get();
  ctx.backward = [&ctx, weight, share, lockstep, scale, dp](const at::Tensor& loss) {
    if (!loss.defined() || loss.numel() != 1) throw HookError("the loss must be a scalar tensor");
    if (!loss.requires_grad())
      throw HookError("the loss does not require grad: it was detached or computed under no_grad, so training cannot update the model");
    ctx.backward_called = true;
    if (ctx.loss_is_normalized && !lockstep) return (loss.reshape({}) * (scale * share)).backward();
    if (lockstep || weight == 0.0) {
      // Nothing to learn here (a stand-in batch, or only ignored labels: a 0/0 mean). Under
      // ZeRO-3 backward still runs, to join the peers' gathers, and its gradients are
      // replaced by zeros before the reduction; elsewhere backward is skipped.
      if (!dp->lockstep()) return;
      dp->discard_micro_step();
      return (loss.reshape({}) * 0.0).backward();
    }
    (loss.reshape({}) * (weight * scale)).backward();
  };
  if (!batch.empty()) device::maybe_inject_out_of_memory(data::batch_size_of(batch), dp_->rank());
  at::Tensor loss;
  const AutocastGuard autocast = this->autocast();
  if (auto l = hooks_->training_step(*model_, batch, ctx)) {
    loss = *l;
    if (!ctx.backward_called) ctx.backward(loss);
  } else {
    loss = compute_loss(batch, ctx).loss;
    ctx.backward(loss);
  }
  if (!loss.defined() || loss.numel() != 1) throw HookError("the loss must be a scalar tensor");
  // Stays on the device: reading it here would make every micro-step wait for the GPU.
  const at::Tensor value = loss.detach().reshape({}).to(at::kDouble);
  if (ctx.loss_is_normalized) return share == 1.0 ? value : value * share;
  return weight == 0.0 ? at::zeros_like(value) : value * weight;  // not 0 × NaN
}

void Trainer::seed_slice(int64_t micro) {
  // splitmix64 over (seed, step, slice): nearby slices get unrelated streams.
  auto mix = [](uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
  };
  const auto slice = static_cast<uint64_t>(micro * dp_->world() + dp_->rank());
  at::manual_seed(mix(mix(mix(static_cast<uint64_t>(args_.seed)) ^ static_cast<uint64_t>(state_.global_step)) ^ slice));
}

at::Tensor Trainer::clip_gradients() { return dp_->clip_grad_norm(args_.max_grad_norm, scaler_ ? 1.0 / scaler_->scale() : 1.0); }

AutocastGuard Trainer::autocast() const {
  return AutocastGuard(args_.bf16 || args_.fp16, device_.device.type(), args_.fp16 ? at::kHalf : at::kBFloat16);
}

int64_t Trainer::count_input_tokens(const Batch& batch) const {
  const std::string& mode = args_.include_num_input_tokens_seen;
  if (mode == "no") return 0;
  std::string name = batch.count("input_ids") ? "input_ids" : call_.input_name;
  if (name.empty() || !batch.count(name))
    for (const auto& [k, v] : batch)
      if (std::find(call_.label_names.begin(), call_.label_names.end(), k) == call_.label_names.end()) {
        name = k;
        break;
      }
  if (mode == "non_padding" && batch.count("attention_mask")) return batch.at("attention_mask").sum().item<int64_t>();
  return batch.count(name) ? batch.at(name).numel() : 0;
}

TrainOutput Trainer::train() {
  const bool tracking = memory_.start("train");
  train_start_ = Clock::now();
  at::manual_seed(static_cast<uint64_t>(args_.seed));  // HF: seed, then model_init's fresh model
  if (auto fresh = hooks_->model_init()) model_ = fresh;
  if (!model_) throw RecipeError("the recipe has no model (give `model` or `model_init`)");
  model_->to(device_.device);
  if (!datasets_.train) throw RecipeError("training needs a train dataset (datasets.train)");
  // The optimizer (and its state) exists before the batch-size search, so a batch that
  // fits fits next to it; the schedule depends on the batch size, so it comes after.
  create_optimizer();
  const std::string resume = resume_checkpoint_path();
  if (args_.auto_find_batch_size) args_.per_device_train_batch_size = find_batch_size(resume);
  data::DataLoader loader = make_loader(datasets_.train, /*train=*/true, args_.per_device_train_batch_size, /*shard=*/true);
  // Global batches per epoch: a rank whose slice of the last one is empty still takes part
  // in its collectives with an empty micro-batch.
  const int64_t global_batch = args_.per_device_train_batch_size * dp_->world();
  const int64_t n_train = datasets_.train->size();
  const int64_t steps_in_epoch = dp_->world() == 1 ? loader.num_batches()
                                 : args_.dataloader_drop_last ? n_train / global_batch
                                                              : (n_train + global_batch - 1) / global_batch;
  const TrainingPlan plan = plan_training(args_, steps_in_epoch, n_train, dp_->world());
  state_ = TrainerState{};
  // Which process this is survives the reset (callbacks and report_to read it).
  state_.is_world_process_zero = dp_->rank() == 0;
  state_.is_local_process_zero = options_.local_rank == 0;
  state_.max_steps = plan.max_steps;
  state_.num_train_epochs = plan.num_train_epochs;
  state_.train_batch_size = args_.per_device_train_batch_size;
  state_.logging_steps = TrainerState::resolve_steps(args_.logging_steps, plan.max_steps);
  // HF: eval_steps defaults to logging_steps only under eval_strategy "steps"; otherwise the
  // state keeps TrainerState's 500 unless eval_steps was given.
  if (args_.eval_strategy == "steps" || args_.eval_steps)
    state_.eval_steps = TrainerState::resolve_steps(args_.eval_steps.value_or(args_.logging_steps), plan.max_steps);
  state_.stateful_callbacks = stateful_callbacks();
  state_.save_steps = TrainerState::resolve_steps(args_.save_steps, plan.max_steps);
  losses_.reset(device_.device, /*rank_parts=*/!(args_.full_determinism && dp_->world() > 1));
  last_logged_step_ = 0;
  create_scheduler();

  if (!resume.empty()) {
    try {
      load_checkpoint(resume);
    } catch (const nlohmann::json::exception& e) {  // a field the typed readers do not cover
      throw CheckpointError(std::string("malformed checkpoint metadata: ") + e.what(), resume);
    }
  }
  const int64_t GA = args_.gradient_accumulation_steps;
  const int64_t epochs_trained = state_.global_step / plan.update_steps_per_epoch;
  const int64_t skip_batches = args_.ignore_data_skip ? 0 : (state_.global_step % plan.update_steps_per_epoch) * GA;
  log_plan(plan, *model_, args_, device::device_string(device_.device));
  if (!resume.empty())
    log::info("  Resuming from " + resume + ": " + std::to_string(epochs_trained) + " epochs done, skipping " +
              std::to_string(skip_batches) + " batches of the current one");

  dp_->zero_grad();
  int64_t state_bytes = -1;  // measured at rest after the first optimizer step
  at::Tensor last_grad_norm;  // the last optimizer step's, for the epoch-end log
  in_training_ = true;
  set_stop_point_active(true);
  callbacks_.fire(Event::kTrainBegin, state_, control_);
  if (args_.eval_on_start && resume.empty()) run_evaluation(/*from_training=*/false);

  for (int64_t epoch = epochs_trained; epoch < plan.num_train_epochs; ++epoch) {
    loader.set_epoch(epoch);
    callbacks_.fire(Event::kEpochBegin, state_, control_);
    const int64_t first = epoch == epochs_trained ? skip_batches : 0;
    // The RNG state is restored after the skip, so skipping cannot perturb it (HF does the same).
    if (epoch == epochs_trained) restore_pending_rng();
    const int64_t remainder = steps_in_epoch % GA == 0 ? GA : steps_in_epoch % GA;
    const int64_t windows = steps_in_epoch / GA + (remainder < GA ? 1 : 0);
    int64_t step = first - 1;  // micro-batch index within the epoch
    for (int64_t w = first / GA; w < windows && !control_.should_epoch_stop && !control_.should_training_stop; ++w) {
      // The window is loaded up front so num_items_in_batch covers all of its micro-batches.
      const int64_t window_len = w == windows - 1 ? remainder : GA;
      std::vector<Batch> window;
      std::vector<models::HostFacts> facts;  // what the model would otherwise read back from the GPU
      std::vector<int64_t> micro_items;
      int64_t num_items = 0;
      // Items, tokens and FLOPs of the whole window over every rank: the loss weights use
      // the global item count so N ranks compute the gradient of one global batch. They are
      // counted on the host batches, before the copy to the device: no GPU wait.
      std::vector<double> totals(3, 0.0);
      int64_t local_items = 0;
      for (int64_t i = 0; i < window_len; ++i) {
        const int64_t index = step + 1 + i;
        const Batch host = index < loader.num_batches() ? loader.batch(index) : Batch{};
        micro_items.push_back(host.empty() ? 0 : count_items(host, call_.label_names, model_->shifts_labels()));
        window.push_back(on_device(host));
        facts.push_back(models::host_facts(host, window.back()));
        models::check_packing_is_honoured(*model_, facts.back());
        if (host.empty()) continue;
        totals[0] += static_cast<double>(micro_items.back());
        local_items += micro_items.back();
        totals[1] += static_cast<double>(count_input_tokens(host));
        totals[2] += model_->floating_point_ops(host);
      }
      dp_->sum(totals);
      num_items = args_.average_tokens_across_devices ? static_cast<int64_t>(totals[0]) : local_items;
      state_.num_input_tokens_seen += static_cast<int64_t>(totals[1]);
      state_.total_flos += totals[2];
      for (int64_t i = 0; i < window_len; ++i) {
        ++step;
        if (i == 0) callbacks_.fire(Event::kStepBegin, state_, control_);
        LossContext ctx;
        ctx.num_items_in_batch = num_items;
        ctx.micro_items = micro_items[i];
        dp_->begin_micro_step(i + 1 == window_len);
        if (args_.full_determinism) seed_slice(i);
        at::Tensor loss;
        if (!window[i].empty()) {
          const models::HostFactsScope known(facts[i]);
          loss = training_step(window[i], ctx);
        } else if (dp_->lockstep()) {
          // No examples for this rank: run any batch with zero weight so this rank joins the
          // gathers and reductions inside forward and backward.
          if (loader.num_batches() == 0) throw DataError("ZeRO-3 needs at least one training batch on every rank", datasets_.train->describe());
          lockstep_dummy_ = true;
          training_step(on_device(loader.batch(0)), ctx);
          lockstep_dummy_ = false;
        }
        dp_->end_micro_step();
        const int64_t since_log = 1 + state_.global_step - last_logged_step_;
        if (args_.full_determinism && dp_->world() > 1) {
          // full_determinism adds the slices' losses one by one in slice order, as one
          // process adds its micro-steps, so even the logged loss is world-size independent.
          for (const double l : dp_->gather(loss.defined() ? loss.item<double>() : 0.0)) losses_.add(l, args_.logging_nan_inf_filter, since_log);
        } else if (loss.defined()) {
          losses_.add(loss, args_.logging_nan_inf_filter, since_log);  // summed over ranks when logged
        }
        if (i + 1 < window_len) {
          callbacks_.fire(Event::kSubstepEnd, state_, control_);
          continue;
        }
        flat_->ensure_grad_views();
        const at::Tensor grad_norm = clip_gradients();  // on the device, read when logged
        // fp16: a non-finite gradient norm (on any rank: the norm is global) skips the
        // optimizer and scheduler step and backs the loss scale off (GradScaler.step/update);
        // deciding that needs the value now, as in PyTorch.
        const double attempted_scale = scaler_ ? scaler_->scale() : 1.0;
        bool apply_step = !scaler_ || scaler_->update(std::isfinite(grad_norm.item<double>()));
        if (!scaler_ && !nonfinite_step_allowed(grad_norm)) apply_step = false;
        callbacks_.fire(Event::kPreOptimizerStep, state_, control_);
        if (apply_step) {
          const double lr_factor = scheduler_->current_factor();
          for (size_t g = 0; g < base_lrs_.size(); ++g) optimizer_->set_lr(g, base_lrs_[g] * lr_factor);
          dp_->before_optimizer_step();
          optimizer_->step();
        } else if (scaler_) {
          log::warn("fp16: gradient overflow (inf/NaN) at step " + std::to_string(state_.global_step + 1) +
                    ": optimizer step skipped, loss scale " + log::format_number(attempted_scale) + " -> " +
                    log::format_number(scaler_->scale()));
        }
        dp_->after_optimizer_step();
        callbacks_.fire(Event::kOptimizerStep, state_, control_);
        const double lr_used = current_lr();
        if (apply_step) scheduler_->step();
        dp_->zero_grad();
        if (state_bytes < 0) {
          state_bytes = dp_->model_state_bytes(*optimizer_);
          int64_t optimizer_bytes = 0;
          for (const auto& [name, t] : optimizer_->state_tensors()) optimizer_bytes += t.defined() ? static_cast<int64_t>(t.nbytes()) : 0;
          log_model_states(state_bytes, optimizer_bytes, dp_->frozen_param_bytes(*model_),
                           dp_->world() > 1 || dp_->config().zero_stage > 0
                               ? " (" + dp_->config().description + ", " + std::to_string(dp_->world()) + " ranks)"
                               : "");
        }
        state_.global_step += 1;
        if (args_.torch_empty_cache_steps && state_.global_step % *args_.torch_empty_cache_steps == 0) device::empty_gpu_cache();
        state_.epoch = static_cast<double>(epoch) + static_cast<double>(step + 1) / static_cast<double>(steps_in_epoch);
        callbacks_.fire(Event::kStepEnd, state_, control_);
        // Preemption (stop_request.h): this step is done; save and stop, on every rank at
        // the same step (agree_on_control votes on it too).
        if (stop_requested()) preempted_ = true;
        agree_on_control();
        if (preempted_) {
          control_.should_save = true;
          control_.should_training_stop = true;
          if (!stop_requested()) request_stop("a stop signal on another rank");
        }
        last_grad_norm = grad_norm;
        maybe_log_save_evaluate(grad_norm, lr_used);
      }
    }
    callbacks_.fire(Event::kEpochEnd, state_, control_);
    agree_on_control();
    maybe_log_save_evaluate(last_grad_norm, current_lr());  // HF: the epoch's last step's norm
    if (control_.should_training_stop) break;
  }
  in_training_ = false;
  set_stop_point_active(false);
  if (preempted_ && dp_->rank() == 0)
    log::info("Stopped by " + stop_reason() + " after step " + std::to_string(state_.global_step) + ": checkpoint saved to " +
              args_.output_dir + "/checkpoint-" + std::to_string(state_.global_step));
  data_wait_seconds_ = loader.wait_seconds();
  dp_->consolidate();  // ZeRO-3: whole parameters from here on (callbacks, evaluation, saving)

  if (args_.load_best_model_at_end && state_.best_model_checkpoint) load_best_model();
  losses_.flush(*dp_);
  TrainOutput out;
  out.global_step = state_.global_step;
  out.training_loss = losses_.total() / std::max<double>(static_cast<double>(state_.global_step), 0.001);
  const double runtime = seconds_since(train_start_);
  json metrics;
  metrics["train_runtime"] = round_to(runtime, 4);
  if (runtime > 0) {
    metrics["train_samples_per_second"] = round_to(plan.num_train_samples / runtime, 3);
    metrics["train_steps_per_second"] = round_to(static_cast<double>(state_.max_steps) / runtime, 3);
  }
  metrics["total_flos"] = state_.total_flos;
  metrics["train_loss"] = out.training_loss;
  metrics["epoch"] = state_.epoch;  // HF's train metrics carry it (Trainer.log adds it)
  // Time spent waiting for batches (building them, or for the prefetch workers).
  metrics["train_data_wait_seconds"] = round_to(data_wait_seconds_, 4);
  if (dp_->world() > 1 || dp_->config().zero_stage > 0 || dp_->backend() == "nccl") {
    metrics["model_state_bytes"] = state_bytes >= 0 ? state_bytes : dp_->model_state_bytes(*optimizer_);  // no step ran: now
    // Seconds and bytes this rank spent in collectives over the run (bucket waits included).
    metrics["train_comm_seconds"] = round_to(dp_->comm_seconds(), 4);
    metrics["train_comm_bytes"] = dp_->comm_bytes();
    if (dp_->config().zero_stage == 3) {  // how much of ZeRO-3's gathering prefetch hid
      const auto [gathers, prefetched] = dp_->gather_counts();
      metrics["train_unit_gathers"] = gathers;
      metrics["train_unit_gathers_prefetched"] = prefetched;
    }
  }
  if (tracking) memory_.stop("train", metrics);
  out.metrics = metrics;
  log(metrics);
  delete_all_but_best_checkpoint();
  callbacks_.fire(Event::kTrainEnd, state_, control_);
  return out;
}

void Trainer::agree_on_control() {
  if (dp_->world() == 1) return;
  // Callbacks may decide differently on different ranks (a rank-local condition): if any
  // rank wants to stop, log, evaluate or save, all do, so none waits alone in a collective.
  bool* flags[] = {&control_.should_training_stop, &control_.should_epoch_stop, &control_.should_save, &control_.should_evaluate,
                   &control_.should_log, &preempted_};
  std::vector<double> votes;
  for (bool* f : flags) votes.push_back(*f ? 1.0 : 0.0);
  dp_->sum(votes);
  for (size_t i = 0; i < votes.size(); ++i) *flags[i] = votes[i] > 0;
}

void Trainer::maybe_log_save_evaluate(const at::Tensor& grad_norm, double lr) {
  if (control_.should_log && state_.global_step > last_logged_step_) {
    json logs;
    const double steps = static_cast<double>(state_.global_step - last_logged_step_);
    logs["loss"] = losses_.flush(*dp_) / steps;  // HF v5: unrounded
    // HF v5 logs the pre-clip norm whether or not clipping is on, NaN included.
    if (grad_norm.defined()) logs["grad_norm"] = grad_norm.item<double>();
    logs["learning_rate"] = lr;
    last_logged_step_ = state_.global_step;
    log(logs, /*with_speed=*/true);
  }
  if (control_.should_evaluate) {
    const json metrics = run_evaluation(/*from_training=*/true);
    bool is_new_best = false;
    if (args_.metric_for_best_model) update_best_metric(metrics, is_new_best);
    if (args_.save_strategy == "best") control_.should_save = is_new_best;
  }
  if (control_.should_save) {
    save_checkpoint();
    callbacks_.fire(Event::kSave, state_, control_);
  }
}

void Trainer::log(json logs, bool with_speed) {
  logs["epoch"] = state_.epoch;
  if (args_.include_num_input_tokens_seen != "no") {
    logs["num_input_tokens_seen"] = state_.num_input_tokens_seen;
    if (with_speed) {
      const double runtime = seconds_since(train_start_);
      logs["train_runtime"] = round_to(runtime, 4);
      if (runtime > 0) logs["train_tokens_per_second"] = round_to(static_cast<double>(state_.num_input_tokens_seen) / runtime, 3);
    }
  }
  json entry = logs;
  entry["step"] = state_.global_step;
  state_.log_history.push_back(entry);
  callbacks_.fire(Event::kLog, state_, control_, logs);
}

}  // namespace runner::train
