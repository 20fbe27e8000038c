#include "runtime/train/trainer.h"

#include <cmath>

#include "runtime/core/errors.h"
#include "runtime/log/log.h"
#include "runtime/train/optimizer_factory.h"
#include "runtime/train/param_groups.h"
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

Trainer::Trainer(TrainingArguments args, models::ModulePtr model, Datasets datasets, std::shared_ptr<Hooks> hooks,
                 std::vector<std::shared_ptr<Callback>> callbacks, TrainerOptions options)
    : args_(std::move(args)),
      model_(std::move(model)),
      datasets_(std::move(datasets)),
      hooks_(hooks ? std::move(hooks) : std::make_shared<Hooks>()),
      options_(std::move(options)),
      callbacks_(args_, std::move(callbacks)) {
  if (!model_) throw RecipeError("the recipe has no model");
  call_.input_name = options_.input_name;
  call_.label_names = args_.label_field_names();
  call_.remove_unused_columns = args_.remove_unused_columns;
  at::manual_seed(static_cast<uint64_t>(args_.seed));  // HF set_seed: dropout and any later init
  callbacks_.fire(Event::kInitEnd, state_, control_);
}

data::DataLoader Trainer::make_loader(const data::DatasetPtr& ds, bool shuffle, int64_t batch_size) const {
  std::shared_ptr<const data::Sampler> sampler;
  if (shuffle && args_.train_sampling_strategy == "random")
    sampler = std::make_shared<data::RandomSampler>(ds->size(), args_.effective_data_seed());
  else
    sampler = std::make_shared<data::SequentialSampler>(ds->size());
  return data::DataLoader(ds, sampler, {batch_size, args_.dataloader_drop_last, options_.collator});
}

void Trainer::create_optimizer_and_scheduler() {
  const auto params = [&] {
    models::NamedTensorList trainable;
    for (const auto& [name, p] : model_->named_parameters())
      if (p.requires_grad()) trainable.emplace_back(name, p);
    return trainable;
  }();
  const auto no_decay = no_decay_mask(*model_, params);
  std::vector<int> group_of;
  for (bool nd : no_decay) group_of.push_back(nd ? 1 : 0);
  flat_ = std::make_unique<optim::FlatParams>(params, group_of, 2);
  optimizer_ = make_optimizer(args_, *flat_);
  base_lrs_ = {args_.learning_rate, args_.learning_rate};
  const int64_t warmup = args_.warmup_steps_for(state_.max_steps);
  scheduler_ = optim::make_scheduler(args_.lr_scheduler_type, warmup, state_.max_steps, args_.lr_scheduler_kwargs, args_.learning_rate);
}

LossResult Trainer::compute_loss(const Batch& batch, LossContext& ctx) {
  if (auto r = hooks_->compute_loss(*model_, batch, ctx)) return std::move(*r);
  return default_compute_loss(*model_, batch, call_);
}

double Trainer::training_step(const Batch& batch, LossContext& ctx) {
  model_->train();
  LossResult r = compute_loss(batch, ctx);
  if (!r.loss.defined() || r.loss.numel() != 1)
    throw HookError("compute_loss must return a scalar loss tensor");
  if (!r.loss.requires_grad())
    throw HookError("the loss does not require grad: it was detached or computed under no_grad, so training cannot update the model");
  // DESIGN.md contract: the loss is a mean over this micro-batch's items; weighting it by
  // micro_items / num_items_in_batch makes the summed gradients of a window equal to the
  // gradient of the mean over every item of the optimizer step.
  at::Tensor loss = r.loss.reshape({});
  if (!ctx.loss_is_normalized) {
    if (ctx.micro_items == 0) return 0.0;  // nothing to learn from; a 0/0 mean would poison the grads
    loss = loss * (static_cast<double>(ctx.micro_items) / static_cast<double>(std::max<int64_t>(1, ctx.num_items_in_batch)));
  }
  loss.backward();
  return loss.detach().item<double>();
}

double Trainer::clip_gradients() {
  at::NoGradGuard no_grad;
  at::Tensor& g = flat_->grad();
  const double norm = g.norm().item<double>();
  if (args_.max_grad_norm > 0) {
    const double coef = args_.max_grad_norm / (norm + 1e-6);
    if (coef < 1.0) g.mul_(coef);
  }
  return norm;
}

TrainOutput Trainer::train() {
  if (!datasets_.train) throw RecipeError("training needs a train dataset (datasets.train)");
  const auto start = Clock::now();
  data::DataLoader loader = make_loader(datasets_.train, /*shuffle=*/true, args_.per_device_train_batch_size);
  const TrainingPlan plan = plan_training(args_, loader.num_batches(), datasets_.train->size());
  state_ = TrainerState{};
  state_.max_steps = plan.max_steps;
  state_.num_train_epochs = plan.num_train_epochs;
  state_.train_batch_size = args_.per_device_train_batch_size;
  state_.logging_steps = TrainerState::resolve_steps(args_.logging_steps, plan.max_steps);
  state_.eval_steps = TrainerState::resolve_steps(args_.eval_steps.value_or(args_.logging_steps), plan.max_steps);
  state_.save_steps = TrainerState::resolve_steps(args_.save_steps, plan.max_steps);
  create_optimizer_and_scheduler();
  log_plan(plan, *model_, args_);

  const int64_t GA = args_.gradient_accumulation_steps;
  const int64_t steps_in_epoch = loader.num_batches();
  tr_loss_ = total_loss_ = 0.0;
  last_logged_step_ = 0;
  flat_->zero_grad();
  callbacks_.fire(Event::kTrainBegin, state_, control_);
  if (args_.eval_on_start && datasets_.eval) evaluate();

  for (int64_t epoch = 0; epoch < plan.num_train_epochs; ++epoch) {
    loader.set_epoch(epoch);
    callbacks_.fire(Event::kEpochBegin, state_, control_);
    const int64_t remainder = steps_in_epoch % GA == 0 ? GA : steps_in_epoch % GA;
    const int64_t windows = steps_in_epoch / GA + (remainder < GA ? 1 : 0);
    int64_t step = -1;  // micro-batch index within the epoch
    for (int64_t w = 0; w < windows && !control_.should_epoch_stop && !control_.should_training_stop; ++w) {
      // The window is loaded up front so num_items_in_batch covers all of its micro-batches.
      const int64_t window_len = w == windows - 1 ? remainder : GA;
      std::vector<Batch> window;
      int64_t num_items = 0;
      for (int64_t i = 0; i < window_len; ++i) {
        window.push_back(loader.batch(step + 1 + i));
        num_items += count_items(window.back(), call_.label_names);
      }
      for (int64_t i = 0; i < window_len; ++i) {
        ++step;
        if (i == 0) callbacks_.fire(Event::kStepBegin, state_, control_);
        LossContext ctx;
        ctx.num_items_in_batch = num_items;
        ctx.micro_items = count_items(window[i], call_.label_names);
        const double loss = training_step(window[i], ctx);
        if (args_.logging_nan_inf_filter && !std::isfinite(loss))
          tr_loss_ += tr_loss_ / static_cast<double>(1 + state_.global_step - last_logged_step_);
        else
          tr_loss_ += loss;
        if (i + 1 < window_len) {
          callbacks_.fire(Event::kSubstepEnd, state_, control_);
          continue;
        }
        const double grad_norm = clip_gradients();
        callbacks_.fire(Event::kPreOptimizerStep, state_, control_);
        const double lr_factor = scheduler_->current_factor();
        for (size_t g = 0; g < base_lrs_.size(); ++g) optimizer_->set_lr(g, base_lrs_[g] * lr_factor);
        optimizer_->step();
        callbacks_.fire(Event::kOptimizerStep, state_, control_);
        const double lr_used = optimizer_->lr(0);
        scheduler_->step();
        flat_->zero_grad();
        state_.global_step += 1;
        state_.epoch = static_cast<double>(epoch) + static_cast<double>(step + 1) / static_cast<double>(steps_in_epoch);
        callbacks_.fire(Event::kStepEnd, state_, control_);
        maybe_log_save_evaluate(grad_norm, lr_used);
      }
    }
    callbacks_.fire(Event::kEpochEnd, state_, control_);
    maybe_log_save_evaluate(std::nan(""), optimizer_->lr(0));
    if (control_.should_training_stop) break;
  }

  total_loss_ += tr_loss_;
  tr_loss_ = 0.0;
  TrainOutput out;
  out.global_step = state_.global_step;
  out.training_loss = total_loss_ / std::max<double>(static_cast<double>(state_.global_step), 0.001);
  const double runtime = seconds_since(start);
  json metrics;
  metrics["train_runtime"] = round_to(runtime, 4);
  if (runtime > 0) {
    metrics["train_samples_per_second"] = round_to(plan.num_train_samples / runtime, 3);
    metrics["train_steps_per_second"] = round_to(static_cast<double>(state_.max_steps) / runtime, 3);
  }
  metrics["total_flos"] = state_.total_flos;
  metrics["train_loss"] = out.training_loss;
  out.metrics = metrics;
  log(metrics);
  callbacks_.fire(Event::kTrainEnd, state_, control_);
  return out;
}

void Trainer::maybe_log_save_evaluate(double grad_norm, double lr) {
  if (control_.should_log && state_.global_step > last_logged_step_) {
    json logs;
    const double steps = static_cast<double>(state_.global_step - last_logged_step_);
    logs["loss"] = round_to(tr_loss_ / steps, 4);
    if (args_.max_grad_norm > 0 && std::isfinite(grad_norm)) logs["grad_norm"] = grad_norm;
    logs["learning_rate"] = lr;
    total_loss_ += tr_loss_;
    tr_loss_ = 0.0;
    last_logged_step_ = state_.global_step;
    log(logs);
  }
  if (control_.should_evaluate && datasets_.eval) evaluate();
  control_.should_evaluate = false;
  if (control_.should_save) {
    save_checkpoint();
    callbacks_.fire(Event::kSave, state_, control_);
  }
}

void Trainer::log(json logs) {
  logs["epoch"] = state_.epoch;
  json entry = logs;
  entry["step"] = state_.global_step;
  state_.log_history.push_back(entry);
  callbacks_.fire(Event::kLog, state_, control_, logs);
}

}  // namespace runner::train
