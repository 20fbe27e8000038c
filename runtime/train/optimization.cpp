// The run's optimizer and learning-rate schedule (HF create_optimizer / create_scheduler):
// the trainable parameters only (a LoRA model's adapters) in the flat layout the
// data-parallel engine shards (weights still in their files are read straight into it), and
// the schedule a hook, a DeepSpeed scheduler block or the arguments ask for.
#include "runtime/train/optimization.h"

#include "runtime/log/log.h"
#include "runtime/models/parameter_store.h"
#include "runtime/train/optimizer_factory.h"

namespace runner::train {

void create_optimizer(RunContext& ctx) {
  models::Module& model = *ctx.model;
  dist::DataParallel& dp = ctx.dp;
  models::NamedTensorList trainable;
  for (const auto& [name, p] : model.named_parameters())
    if (p.requires_grad()) trainable.emplace_back(name, p);
  auto spec = ctx.hooks.create_optimizer(model, ctx.args);
  FlatLayout layout;
  layout.grad_buffer = dp.full_grad_buffer();
  layout.data_buffer = dp.full_data_buffer();
  layout.optimizer_view = [&dp, &model](optim::FlatParams& full) -> optim::FlatParams& { return dp.attach(full, model); };
  // A model still in its files is read here, straight into the flat buffer (or under ZeRO-3
  // into each rank's shards): no second copy of the model ever exists.
  // The model's parameter store places each parameter (parameter_store.h).
  const models::StoreList records = models::stores_in(model);
  if (!records.empty()) layout.device = records.front()->device();
  layout.place = [records](const std::string&, const at::Tensor& p, const at::Tensor& slot) { models::place(records, p, slot); };
  auto built = build_optimizer(ctx.args, model, trainable, spec ? &*spec : nullptr, layout);
  models::materialize(model);  // what no buffer took (frozen weights outside ZeRO-3) loads whole
  if (!records.empty()) {
    int64_t read = 0, total = 0;
    for (const auto& r : records) read += r->values_read(), total += r->values_total();
    log::info("Read " + std::to_string(read) + " of the model's " + std::to_string(total) + " parameter values from its files on this rank");
  }
  ctx.opt.flat = std::move(built.flat);
  ctx.opt.optimizer = std::move(built.optimizer);
  dp.check_optimizer(*ctx.opt.optimizer);
  ctx.opt.base_lrs = built.base_lrs;
}

void create_scheduler(RunContext& ctx, int64_t max_steps) {
  const TrainingArguments& args = ctx.args;
  Optimization& opt = ctx.opt;
  const int64_t warmup = args.warmup_steps_for(max_steps);
  if (auto s = ctx.hooks.create_scheduler(max_steps, args)) {
    if (s->lambda) opt.scheduler = optim::make_lambda_scheduler(s->lambda);
    else opt.scheduler = optim::make_scheduler(s->type, s->warmup_steps.value_or(warmup), max_steps, s->kwargs, opt.base_lrs.at(0));
  } else if (const auto& f = ctx.options.lr_factor) {
    opt.scheduler = optim::make_lambda_scheduler([f, max_steps](int64_t step) { return f(step, max_steps); });
  } else {
    opt.scheduler = optim::make_scheduler(args.lr_scheduler_type, warmup, max_steps, args.lr_scheduler_kwargs, args.learning_rate);
  }
}

}  // namespace runner::train
