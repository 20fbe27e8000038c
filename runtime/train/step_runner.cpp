#include "runtime/train/step_runner.h"

#include <cmath>

#include "runtime/core/errors.h"
#include "runtime/core/splitmix.h"
#include "runtime/device/out_of_memory.h"
#include "runtime/log/log.h"
#include "runtime/train/training_plan.h"

namespace runner::train {

StepRunner::StepRunner(RunContext& ctx, std::function<void()> save_checkpoint)
    : ctx_(ctx), save_checkpoint_(std::move(save_checkpoint)), graph_(ctx) {}

Window StepRunner::load(const data::DataLoader& loader, int64_t first, int64_t length) {
  // The window is loaded up front so num_items_in_batch covers all of its micro-batches.
  // Items, tokens and FLOPs of the whole window over every rank: the loss weights use the
  // global item count so N ranks compute the gradient of one global batch. They are counted
  // on the host batches, before the copy to the device: no GPU wait.
  Window w;
  std::vector<double> totals(3, 0.0);
  int64_t local_items = 0;
  models::Module& model = *ctx_.model;
  for (int64_t i = 0; i < length; ++i) {
    const int64_t index = first + i;
    w.host.push_back(index < loader.num_batches() ? loader.batch(index) : Batch{});
    const Batch& host = w.host.back();
    w.micro_items.push_back(host.empty() ? 0 : count_items(host, ctx_.call.label_names, model.shifts_labels()));
    if (host.empty()) continue;
    totals[0] += static_cast<double>(w.micro_items.back());
    local_items += w.micro_items.back();
    totals[1] += static_cast<double>(count_input_tokens(host));
    totals[2] += model.floating_point_ops(host);
  }
  ctx_.dp.sum(totals);
  w.num_items = ctx_.args.average_tokens_across_devices ? static_cast<int64_t>(totals[0]) : local_items;
  ctx_.loop.state.num_input_tokens_seen += static_cast<int64_t>(totals[1]);
  ctx_.loop.state.total_flos += totals[2];
  next_ = Staged{};
  return w;
}

StepRunner::Staged StepRunner::stage(const Window& w, size_t i) const {
  Staged s;
  s.index = static_cast<int64_t>(i);
  s.batch = ctx_.on_device(w.host[i]);
  s.facts = models::host_facts(w.host[i], s.batch);
  models::check_packing_is_honoured(*ctx_.model, s.facts);
  return s;
}

void StepRunner::run(const data::DataLoader& loader, const Window& w, size_t i) {
  const TrainingArguments& args = ctx_.args;
  dist::DataParallel& dp = ctx_.dp;
  LoopState& loop = ctx_.loop;
  // auto_find_batch_size starts the loop over after an out-of-memory error in its first step,
  // which a captured step cannot (its warm-up and capture run the micro-steps inside the
  // optimizer step): the first step then stays eager.
  if (i == 0) static_window_ = (!args.auto_find_batch_size || optimizer_stepped_) && graph_.accepts(w, loop.state.global_step + 1);
  if (static_window_) return graph_.stage(w, i);  // the step runs in finish()
  LossContext loss_ctx;
  loss_ctx.num_items_in_batch = w.num_items;
  loss_ctx.micro_items = w.micro_items[i];
  dp.begin_micro_step(i + 1 == w.size());
  if (args.full_determinism) seed_slice(static_cast<int64_t>(i));
  Staged current = next_.index == static_cast<int64_t>(i) ? std::move(next_) : stage(w, i);
  next_ = Staged{};
  at::Tensor loss;
  if (!current.batch.empty()) {
    const models::HostFactsScope known(current.facts);
    in_loop_ = true;
    loss = training_step(current.batch, loss_ctx);
    in_loop_ = false;
  } else if (dp.lockstep()) {
    // No examples for this rank: run any batch with zero weight so this rank joins the
    // gathers and reductions inside forward and backward.
    if (loader.num_batches() == 0) throw DataError("ZeRO-3 needs at least one training batch on every rank", loader.dataset().describe());
    lockstep_dummy_ = true;
    training_step(ctx_.on_device(loader.batch(0)), loss_ctx);
    lockstep_dummy_ = false;
  } else {
    ctx_.loop.metrics.skip();  // the other ranks' minima and maxima of this call stand alone
  }
  dp.end_micro_step();
  current = Staged{};  // its memory is reused by the next micro-batch
  if (i + 1 < w.size()) next_ = stage(w, i + 1);
  const int64_t since_log = 1 + loop.state.global_step - loop.last_logged_step;
  if (args.full_determinism && dp.world() > 1) {
    // full_determinism adds the slices' losses one by one in slice order, as one process
    // adds its micro-steps, so even the logged loss is world-size independent.
    for (const double l : dp.gather(loss.defined() ? loss.item<double>() : 0.0)) loop.losses.add(l, args.logging_nan_inf_filter, since_log);
  } else if (loss.defined()) {
    loop.losses.add(loss, args.logging_nan_inf_filter, since_log);  // summed over ranks when logged
  }
}

at::Tensor StepRunner::training_step(const Batch& batch, LossContext& loss_ctx) {
  models::Module& model = *ctx_.model;
  dist::DataParallel* dp = &ctx_.dp;
  LossScaler* scaler = ctx_.opt.scaler.get();
  model.train();
  // DESIGN.md contract: a loss is a mean over this micro-batch's items; weighting it by
  // micro_items / num_items_in_batch makes the summed gradients of a window equal to the
  // gradient of the mean over every item of the optimizer step.
  // average_tokens_across_devices = false (HF v4): num_items_in_batch is this rank's own
  // count and the ranks' gradients are averaged, not summed.
  const double share = ctx_.args.average_tokens_across_devices ? 1.0 : 1.0 / dp->world();
  const double weight = loss_ctx.micro_items == 0
                            ? 0.0
                            : share * static_cast<double>(loss_ctx.micro_items) / static_cast<double>(std::max<int64_t>(1, loss_ctx.num_items_in_batch));
  const bool lockstep = lockstep_dummy_;
  // fp16: the loss is scaled up before backward so small gradients survive in fp16; the
  // gradients are scaled back down before clipping.
  const double scale = scaler ? scaler->scale() : 1.0;
  loss_ctx.device = ctx_.device.device;
  // The loop's injected fault strikes after forward, as a real one mostly does: dropout has
  // drawn from the generators by then.
  const int64_t loop_rows = in_loop_ && !batch.empty() ? data::batch_size_of(batch) : 0;
  loss_ctx.backward = [&loss_ctx, weight, share, lockstep, scale, dp, loop_rows](const at::Tensor& loss) {
    if (loop_rows) device::maybe_inject_out_of_memory_in_loop(loop_rows, dp->rank(), loss_ctx.device);
    if (!loss.defined()) throw HookError("the training loss is missing (compute_loss or training_step returned none)");
    if (loss.numel() != 1)
      throw HookError("the training loss must be one value (a scalar tensor), got shape " + c10::str(loss.sizes()) +
                      " from compute_loss, training_step or the model; reduce it, e.g. with :mean()");
    if (!loss.requires_grad())
      throw HookError("the loss does not require grad: it was detached or computed under no_grad, so training cannot update the model");
    loss_ctx.backward_called = true;
    if (loss_ctx.loss_is_normalized && !lockstep) return (loss.reshape({}) * (scale * share)).backward();
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
  if (!batch.empty()) device::maybe_inject_out_of_memory(data::batch_size_of(batch), dp->rank());
  // Autocast covers forward and loss, not backward (torch.autocast's advice, HF's
  // training_step): backward's ops run in the dtypes their forward ops chose. A recipe's
  // training_step calls backward inside its own scope; ctx.backward leaves autocast for it.
  at::Tensor loss;
  const auto backward_outside_autocast = [this, &loss_ctx, inner = loss_ctx.backward](const at::Tensor& l) {
    const AutocastGuard off = ctx_.autocast_off();
    inner(l);
  };
  std::optional<at::Tensor> from_hook;
  {
    const AutocastGuard autocast = ctx_.autocast();
    loss_ctx.backward = backward_outside_autocast;
    from_hook = ctx_.hooks.training_step(model, batch, loss_ctx);
    if (!from_hook) {
      LossResult r = ctx_.compute_loss(batch, loss_ctx);
      loss = r.loss;
      ctx_.loop.metrics.add(r.metrics, /*counts=*/!lockstep);  // a stand-in batch's names, not its values
    }
  }
  if (from_hook) {
    ctx_.warn_if_label_smoothing_unused("training_step");
    loss = *from_hook;
    if (!loss_ctx.backward_called) loss_ctx.backward(loss);
  } else {
    loss_ctx.backward(loss);
  }
  if (!loss.defined() || loss.numel() != 1)
    throw HookError("training_step must return the loss as one value (a scalar tensor), got " +
                    (loss.defined() ? "shape " + c10::str(loss.sizes()) : std::string("none")));
  // Stays on the device: reading it here would make every micro-step wait for the GPU.
  const at::Tensor value = loss.detach().reshape({}).to(at::kDouble);
  if (loss_ctx.loss_is_normalized) return share == 1.0 ? value : value * share;
  return weight == 0.0 ? at::zeros_like(value) : value * weight;  // not 0 × NaN
}

void StepRunner::decide_clipping_fold() {
  const Optimization& opt = ctx_.opt;
  // HF fires on_pre_optimizer_step between the clip and the step: a callback there sees
  // clipped gradients.
  fold_clipping_ = (ctx_.args.max_grad_norm > 0 || opt.scaler) && opt.optimizer && opt.optimizer->folds_gradient_divisor() &&
                   !ctx_.dp.config().offload_optimizer && !ctx_.callbacks.optimizer_step_observer();
}

StepOutcome StepRunner::finish() {
  if (static_window_) {
    optimizer_stepped_ = true;
    return finish_static();
  }
  dist::DataParallel& dp = ctx_.dp;
  Optimization& opt = ctx_.opt;
  LoopState& loop = ctx_.loop;
  opt.flat->ensure_grad_views();
  StepOutcome out;
  const double unscale = opt.scaler ? 1.0 / opt.scaler->scale() : 1.0;
  at::Tensor divisor;  // defined when the clip is left to the optimizer's pass
  out.grad_norm = dp.clip_grad_norm(ctx_.args.max_grad_norm, unscale, fold_clipping_ ? &divisor : nullptr);  // on the device, read when logged
  // From here on the step changes state (a skipped fp16 step too: the loss scale); an
  // out-of-memory error before this point may still start the loop over (auto_find_batch_size).
  optimizer_stepped_ = true;
  // fp16: a non-finite gradient norm (on any rank: the norm is global) skips the optimizer
  // and scheduler step and backs the loss scale off (GradScaler.step/update); deciding that
  // needs the value now, as in PyTorch.
  const double attempted_scale = opt.scaler ? opt.scaler->scale() : 1.0;
  bool apply_step = !opt.scaler || opt.scaler->update(std::isfinite(out.grad_norm.item<double>()));
  if (!opt.scaler && !nonfinite_step_allowed(out.grad_norm)) apply_step = false;
  ctx_.callbacks.fire(Event::kPreOptimizerStep, loop.state, loop.control);
  if (apply_step) {
    const double lr_factor = opt.scheduler->current_factor();
    for (size_t g = 0; g < opt.base_lrs.size(); ++g) opt.optimizer->set_lr(g, opt.base_lrs[g] * lr_factor);
    dp.before_optimizer_step();
    if (divisor.defined()) opt.optimizer->set_gradient_divisor(divisor);
    opt.optimizer->step();
  } else if (opt.scaler) {
    log::warn("fp16: gradient overflow (inf/NaN) at step " + std::to_string(loop.state.global_step + 1) +
              ": optimizer step skipped, loss scale " + log::format_number(attempted_scale) + " -> " + log::format_number(opt.scaler->scale()));
  }
  dp.after_optimizer_step();
  ctx_.callbacks.fire(Event::kOptimizerStep, loop.state, loop.control);
  out.lr = opt.current_lr();
  if (apply_step) opt.scheduler->step();
  dp.zero_grad();
  measure_state_bytes();
  return out;
}

StepOutcome StepRunner::finish_static() {
  static_window_ = false;
  dist::DataParallel& dp = ctx_.dp;
  Optimization& opt = ctx_.opt;
  LoopState& loop = ctx_.loop;
  opt.flat->ensure_grad_views();
  // Fired before the replay, which holds the whole step: StepGraph::start refused callbacks
  // that look at the step here.
  ctx_.callbacks.fire(Event::kPreOptimizerStep, loop.state, loop.control);
  const double lr_factor = opt.scheduler->current_factor();
  for (size_t g = 0; g < opt.base_lrs.size(); ++g) opt.optimizer->set_lr(g, opt.base_lrs[g] * lr_factor);
  opt.optimizer->begin_step();  // the step count and learning rates into the graph's device scalars
  const StepGraph::Outputs o = graph_.run([this, &dp, &opt](const std::vector<Batch>& inputs, const std::vector<models::HostFacts>& facts) {
    StepGraph::Outputs r;
    for (size_t i = 0; i < inputs.size(); ++i) {
      dp.begin_micro_step(i + 1 == inputs.size());
      LossContext loss_ctx;
      loss_ctx.num_items_in_batch = graph_.num_items();
      loss_ctx.micro_items = graph_.micro_items(i);
      const models::HostFactsScope known(facts[i]);
      r.losses.push_back(training_step(inputs[i], loss_ctx));
      dp.end_micro_step();
    }
    at::Tensor divisor;
    r.grad_norm = dp.clip_grad_norm(ctx_.args.max_grad_norm, 1.0, fold_clipping_ ? &divisor : nullptr);
    dp.before_optimizer_step();
    if (divisor.defined()) opt.optimizer->set_gradient_divisor(divisor);
    opt.optimizer->device_step();
    dp.after_optimizer_step();
    dp.zero_grad();
    return r;
  });
  const int64_t since_log = 1 + loop.state.global_step - loop.last_logged_step;
  for (const at::Tensor& loss : o.losses) loop.losses.add(loss, ctx_.args.logging_nan_inf_filter, since_log);
  StepOutcome out;
  out.grad_norm = o.grad_norm.clone();  // a replay's output is rewritten by the next replay
  ctx_.callbacks.fire(Event::kOptimizerStep, loop.state, loop.control);
  out.lr = opt.current_lr();
  opt.scheduler->step();
  measure_state_bytes();
  return out;
}

void StepRunner::measure_state_bytes() {
  dist::DataParallel& dp = ctx_.dp;
  Optimization& opt = ctx_.opt;
  if (state_bytes_ < 0) {
    state_bytes_ = dp.model_state_bytes(*opt.optimizer);
    int64_t optimizer_bytes = 0;
    for (const auto& [name, t] : opt.optimizer->state_tensors()) optimizer_bytes += t.defined() ? static_cast<int64_t>(t.nbytes()) : 0;
    log_model_states(state_bytes_, optimizer_bytes, dp.frozen_param_bytes(*ctx_.model),
                     dp.world() > 1 || dp.config().zero_stage > 0 ? " (" + dp.config().description + ", " + std::to_string(dp.world()) + " ranks)"
                                                                 : "");
  }
}

void StepRunner::seed_slice(int64_t micro) {
  // splitmix64 over (seed, step, slice): nearby slices get unrelated streams.
  const auto slice = static_cast<uint64_t>(micro * ctx_.dp.world() + ctx_.dp.rank());
  const uint64_t step = static_cast<uint64_t>(ctx_.loop.state.global_step);
  at::manual_seed(splitmix64_mix(splitmix64_mix(splitmix64_mix(static_cast<uint64_t>(ctx_.args.seed)) ^ step) ^ slice));
}

bool StepRunner::nonfinite_step_allowed(const at::Tensor& grad_norm) {
  // nonfinite_policy (not under fp16, whose loss scaler skips overflowing steps already).
  // Reading the norm waits for the device, so the default "log" (HF: train on) never does.
  const TrainingArguments& args = ctx_.args;
  if (args.nonfinite_policy == "log" || std::isfinite(grad_norm.item<double>())) return true;
  const int64_t step = ctx_.loop.state.global_step;
  const std::string what = "step " + std::to_string(step + 1) + ": the gradient norm is not finite (a NaN/Inf loss or gradient)";
  if (args.nonfinite_policy == "stop") {
    ctx_.dp.zero_grad();
    save_checkpoint_();  // the weights of the last good step
    throw HookError(what + "; stopped (nonfinite_policy = \"stop\"); " + args.output_dir + "/checkpoint-" + std::to_string(step) +
                    " holds the last good step");
  }
  log::warn(what + ": optimizer and scheduler step skipped (nonfinite_policy = \"skip\")");
  return false;
}

int64_t StepRunner::count_input_tokens(const Batch& batch) const {
  const std::string& mode = ctx_.args.include_num_input_tokens_seen;
  if (mode == "no") return 0;
  const auto& labels = ctx_.call.label_names;
  std::string name = batch.count("input_ids") ? "input_ids" : ctx_.call.input_name;
  if (name.empty() || !batch.count(name))
    for (const auto& [k, v] : batch)
      if (std::find(labels.begin(), labels.end(), k) == labels.end()) {
        name = k;
        break;
      }
  if (mode == "non_padding" && batch.count("attention_mask")) return batch.at("attention_mask").sum().item<int64_t>();
  return batch.count(name) ? batch.at(name).numel() : 0;
}

}  // namespace runner::train
