// The Trainer's optimizer and learning-rate schedule (HF create_optimizer /
// create_scheduler): the trainable parameters only (a LoRA model's adapters) in the flat
// layout the data-parallel engine shards (weights still in their files are read into it),
// and the schedule a hook, a DeepSpeed scheduler block or the arguments ask for.
#include "runtime/log/log.h"
#include "runtime/models/deferred_weights.h"
#include "runtime/train/optimizer_factory.h"
#include "runtime/train/trainer.h"

namespace runner::train {

void Trainer::create_optimizer() {
  models::NamedTensorList trainable;
  for (const auto& [name, p] : model_->named_parameters())
    if (p.requires_grad()) trainable.emplace_back(name, p);
  auto spec = hooks_->create_optimizer(*model_, args_);
  FlatLayout layout;
  layout.grad_buffer = dp_->full_grad_buffer();
  layout.data_buffer = dp_->full_data_buffer();
  layout.optimizer_view = [this](optim::FlatParams& full) -> optim::FlatParams& { return dp_->attach(full, *model_); };
  // A model still in its files is read here, straight into the flat buffer (or under ZeRO-3
  // into each rank's shards): no second copy of the model ever exists.
  const models::DeferredRecords records = models::deferred_in(*model_);
  if (!records.empty()) {
    layout.device = records.front()->device();
    layout.place = [records](const std::string& name, const at::Tensor& p, const at::Tensor& slot) { models::place(records, p, slot, name); };
  }
  auto built = build_optimizer(args_, *model_, trainable, spec ? &*spec : nullptr, layout);
  models::materialize(*model_);  // what no buffer took (frozen weights outside ZeRO-3) loads whole
  if (!records.empty()) {
    int64_t read = 0, total = 0;
    for (const auto& r : records) read += r->values_read(), total += r->values_total();
    log::info("Read " + std::to_string(read) + " of the model's " + std::to_string(total) + " parameter values from its files on this rank");
  }
  flat_ = std::move(built.flat);
  optimizer_ = std::move(built.optimizer);
  dp_->check_optimizer(*optimizer_);
  base_lrs_ = built.base_lrs;
}

void Trainer::create_scheduler() {
  const int64_t warmup = args_.warmup_steps_for(state_.max_steps);
  if (auto s = hooks_->create_scheduler(state_.max_steps, args_)) {
    if (s->lambda) scheduler_ = optim::make_lambda_scheduler(s->lambda);
    else scheduler_ = optim::make_scheduler(s->type, s->warmup_steps.value_or(warmup), state_.max_steps, s->kwargs, base_lrs_.at(0));
  } else if (const auto& f = dp_->config().lr_factor) {
    const int64_t max_steps = state_.max_steps;
    scheduler_ = optim::make_lambda_scheduler([f, max_steps](int64_t step) { return f(step, max_steps); });
  } else {
    scheduler_ = optim::make_scheduler(args_.lr_scheduler_type, warmup, state_.max_steps, args_.lr_scheduler_kwargs, args_.learning_rate);
  }
}

double Trainer::current_lr() const { return optimizer_ ? optimizer_->lr(0) : 0.0; }

}  // namespace runner::train
