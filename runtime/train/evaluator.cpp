#include "runtime/train/evaluator.h"

#include "runtime/dist/flight_recorder.h"

#include <c10/core/GradMode.h>

#include <cmath>

#include "runtime/core/errors.h"
#include "runtime/log/log.h"
#include "runtime/models/parameter_store.h"
#include "runtime/models/host_facts.h"
#include "runtime/optim/scheduler.h"
#include "runtime/train/eval_accumulator.h"
#include "runtime/train/eval_gather.h"

namespace runner::train {

using nlohmann::json;

namespace {
double round_to(double v, double scale) { return std::round(v * scale) / scale; }
}  // namespace

PredictionResult Evaluator::prediction_step(const Batch& batch, bool prediction_loss_only, bool stand_in) {
  const AutocastGuard autocast = ctx_.autocast();
  if (auto r = ctx_.hooks.prediction_step(*ctx_.model, batch, prediction_loss_only)) return *r;
  PredictionResult r;
  bool has_labels = !ctx_.call.label_names.empty();
  for (const auto& name : ctx_.call.label_names) has_labels = has_labels && batch.count(name);
  if (has_labels) r.labels = batch.at(ctx_.call.label_names.front());  // captured before the forward
  models::TensorMap outputs;
  if (has_labels || loss_without_labels_) {
    LossContext ctx;
    ctx.training = false;
    ctx.micro_items = ctx.num_items_in_batch = count_items(batch, ctx_.call.label_names, ctx_.model->shifts_labels());
    LossResult lr = ctx_.compute_loss(batch, ctx);
    if (lr.loss.defined()) r.loss = lr.loss.detach().mean();
    metrics_.add(lr.metrics, /*counts=*/!stand_in);  // a stand-in's names, not its values
    outputs = std::move(lr.outputs);
  } else {
    outputs = call_model(*ctx_.model, batch, ctx_.call);
  }
  if (prediction_loss_only) return {r.loss, {}, {}};
  if (ctx_.args.predict_with_generate) {
    r.logits = generate_predictions(batch);  // generated ids are the predictions
    return r;
  }
  r.logits = logits_of(outputs);
  if (r.logits.defined()) r.logits = r.logits.detach();
  // Autocast (or a bf16/fp16 model) gives low-precision logits; metrics get fp32.
  if (r.logits.defined() && (r.logits.scalar_type() == at::kBFloat16 || r.logits.scalar_type() == at::kHalf)) r.logits = r.logits.to(at::kFloat);
  return r;
}

PredictionOutput Evaluator::evaluation_loop(const data::DatasetPtr& ds, const std::string& prefix, bool prediction_loss_only) {
  models::materialize(*ctx_.model);  // ZeRO-3 without training: weights still in their files load whole
  // Under data parallelism each rank evaluates its slice of every global batch and the
  // results are gathered in dataset order (eval_gather.h). Per-batch metrics
  // (batch_eval_metrics), dataloader_drop_last (a sharded set would drop a partial global
  // batch, not a partial batch) and sets too small to give every rank a batch run whole on
  // every rank instead.
  const int64_t B = ctx_.args.per_device_eval_batch_size, W = ctx_.dp.world();
  const bool shard = W > 1 && !ctx_.args.batch_eval_metrics && !ctx_.args.dataloader_drop_last && ds->size() > B * (W - 1);
  data::DataLoader loader = ctx_.make_loader(ds, /*train=*/false, B, shard);
  const int64_t n_batches = shard ? (ds->size() + B * W - 1) / (B * W) : loader.num_batches();
  // This rank's rows per global batch, per gathered tensor (a hook may return other row
  // counts than examples, e.g. flattened token logits).
  std::vector<int64_t> loss_rows, pred_rows, label_rows, input_rows;
  auto rows = [](const at::Tensor& t) -> int64_t { return !t.defined() ? 0 : t.dim() == 0 ? 1 : t.size(0); };
  // HF: bf16/fp16_full_eval cast the model itself, for good, when evaluating outside training.
  const std::optional<at::ScalarType> full_eval = ctx_.loop.in_training      ? std::nullopt
                                                  : ctx_.args.fp16_full_eval ? std::optional(at::kHalf)
                                                  : ctx_.args.bf16_full_eval ? std::optional(at::kBFloat16)
                                                                         : std::nullopt;
  if (full_eval) ctx_.model->to(*full_eval);
  auto prepare = [&](const Batch& host) {
    Batch batch = ctx_.on_device(host);
    if (full_eval)  // float inputs follow the model's dtype; labels keep theirs
      for (auto& [name, t] : batch)
        if (t.defined() && t.is_floating_point() && std::find(ctx_.call.label_names.begin(), ctx_.call.label_names.end(), name) == ctx_.call.label_names.end())
          t = t.to(*full_eval);
    return batch;
  };
  const bool was_training = ctx_.model->is_training();
  ctx_.model->eval();
  const bool want_inputs = std::find(ctx_.args.include_for_metrics.begin(), ctx_.args.include_for_metrics.end(), "inputs") != ctx_.args.include_for_metrics.end();
  const bool want_losses = std::find(ctx_.args.include_for_metrics.begin(), ctx_.args.include_for_metrics.end(), "loss") != ctx_.args.include_for_metrics.end();
  const std::string input_field = ctx_.main_input_name(*ds);
  at::Tensor losses;  // (N) each batch's loss repeated per example, as HF does
  EvalPrediction all;      // on the host
  EvalPrediction pending;  // on the device, moved to `all` every eval_accumulation_steps batches
  at::Tensor pending_losses;
  const int64_t flush_every = ctx_.args.eval_accumulation_steps.value_or(1);
  auto flush = [&] {
    auto host = [](const at::Tensor& t) { return t.defined() ? t.to(at::kCPU) : t; };
    all.predictions = concat_padded(all.predictions, host(pending.predictions));
    all.label_ids = concat_padded(all.label_ids, host(pending.label_ids));
    all.inputs = concat_padded(all.inputs, host(pending.inputs));
    if (pending_losses.defined()) losses = losses.defined() ? at::cat({losses, host(pending_losses)}) : host(pending_losses);
    pending = EvalPrediction{};
    pending_losses = at::Tensor();
  };
  PredictionOutput out;
  json batch_metrics;
  metrics_.reset(/*rank_parts=*/shard);
  // A loss that needs no labels is computed all the same: DPO's (TRL's prediction_step), or a
  // recipe's compute_loss with label_names = {} (HF's loss_without_labels).
  const std::vector<std::string> step_hooks = ctx_.hooks.step_hooks();
  const bool recipe_loss = std::find(step_hooks.begin(), step_hooks.end(), "compute_loss") != step_hooks.end();
  loss_without_labels_ = ctx_.hooks.loss_without_labels() || (ctx_.call.label_names.empty() && recipe_loss);
  {
    c10::NoGradGuard no_grad;
    for (int64_t b = 0; b < n_batches; ++b) {
      if (b >= loader.num_batches()) {  // this rank's slice of the last global batch is empty
        for (auto* v : {&loss_rows, &pred_rows, &label_rows, &input_rows}) v->push_back(0);
        if (ctx_.dp.lockstep()) prediction_step(prepare(loader.batch(0)), prediction_loss_only, /*stand_in=*/true);  // ZeRO-3 gathers inside forward: join them
        else metrics_.skip();
        continue;
      }
      const Batch host = loader.batch(b);
      Batch batch = prepare(host);
      const models::HostFacts facts = models::host_facts(host, batch);
      models::check_packing_is_honoured(*ctx_.model, facts);
      const models::HostFactsScope known(facts);  // the model's checks read the host copy
      const int64_t n = data::batch_size_of(batch);
      out.num_samples += n;
      PredictionResult r = prediction_step(batch, prediction_loss_only);
      if (r.loss.defined() && r.loss.numel() != 1)
        throw RecipeError("the evaluation loss must be one value (a scalar tensor), got shape " + c10::str(r.loss.sizes()) +
                          " from prediction_step, compute_loss or the model");
      at::Tensor batch_losses = r.loss.defined() ? r.loss.reshape({1}).expand({n}).to(at::kDouble) : at::Tensor();
      if (batch_losses.defined()) pending_losses = pending_losses.defined() ? at::cat({pending_losses, batch_losses}) : batch_losses.clone();
      if (r.logits.defined()) {
        if (auto p = ctx_.hooks.preprocess_logits_for_metrics(r.logits, r.labels)) r.logits = p->detach();
      }
      at::Tensor inputs = want_inputs && batch.count(input_field) ? batch.at(input_field) : at::Tensor();
      // batch_eval_metrics: constant memory, metrics computed per batch and nothing kept,
      // except by predict(), whose predictions are its output (HF: description "Prediction").
      if (ctx_.args.batch_eval_metrics && ctx_.hooks.has_compute_metrics() && r.logits.defined() && r.labels.defined()) {
        EvalPrediction p{r.logits, r.labels, inputs, want_losses ? batch_losses : at::Tensor()};
        batch_metrics = ctx_.hooks.compute_metrics(p, /*compute_result=*/b == n_batches - 1);
      }
      if (!ctx_.args.batch_eval_metrics || prefix == "test") {
        pending.predictions = concat_padded(pending.predictions, r.logits);
        pending.label_ids = concat_padded(pending.label_ids, r.labels);
        if (want_inputs) pending.inputs = concat_padded(pending.inputs, inputs);
      }
      if ((b + 1) % flush_every == 0) flush();
      loss_rows.push_back(rows(batch_losses));
      pred_rows.push_back(rows(r.logits));
      label_rows.push_back(rows(r.labels));
      input_rows.push_back(rows(inputs));
      // Where the loop is, for the progress bar (HF passes the dataloader instead).
      ctx_.callbacks.fire(Event::kPredictionStep, ctx_.loop.state, ctx_.loop.control, json{{"split", prefix}, {"batch", b + 1}, {"num_batches", n_batches}});
    }
  }
  flush();
  ctx_.model->train(was_training);
  ctx_.dp.release_after_forward();  // ZeRO-3's root unit: no rank keeps it whole after the loop
  if (shard) {
    losses = gather_in_dataset_order(ctx_.dp, losses, loss_rows);
    all.predictions = gather_in_dataset_order(ctx_.dp, all.predictions, pred_rows);
    all.label_ids = gather_in_dataset_order(ctx_.dp, all.label_ids, label_rows);
    if (want_inputs) all.inputs = gather_in_dataset_order(ctx_.dp, all.inputs, input_rows);
    std::vector<double> total{static_cast<double>(out.num_samples)};
    ctx_.dp.sum(total);
    out.num_samples = static_cast<int64_t>(total[0]);
  }
  if (want_losses && losses.defined()) all.losses = losses;

  json metrics = json::object();
  if (ctx_.args.batch_eval_metrics) {
    metrics = batch_metrics.is_object() ? batch_metrics : json::object();
  } else if (ctx_.hooks.has_compute_metrics() && all.predictions.defined() && all.label_ids.defined()) {
    metrics = ctx_.hooks.compute_metrics(all, /*compute_result=*/true);
  }
  if (losses.defined()) {
    at::Tensor kept = losses;
    if (ctx_.args.logging_nan_inf_filter) {  // HF: a NaN/inf batch loss is left out while some are finite
      const at::Tensor finite = at::isfinite(losses);
      if (finite.any().item<bool>()) kept = losses.masked_select(finite);
    }
    metrics[prefix + "_loss"] = kept.mean().item<double>();
  }
  metrics.update(metrics_.flush(ctx_.dp));  // compute_loss's named values, as TRL logs them (eval_rewards/chosen)
  json prefixed = json::object();
  for (auto it = metrics.begin(); it != metrics.end(); ++it) {
    const std::string& k = it.key();
    prefixed[k.rfind(prefix + "_", 0) == 0 ? k : prefix + "_" + k] = it.value();
  }
  out.metrics = prefixed;
  out.predictions = all.predictions;
  out.label_ids = all.label_ids;
  return out;
}

json Evaluator::evaluate() {
  dist::Phase phase("evaluate");
  if (!datasets_.has_eval()) throw RecipeError("evaluation needs an eval dataset (datasets.eval)");
  std::vector<std::pair<std::string, data::DatasetPtr>> sets;
  if (datasets_.eval) sets.emplace_back("eval", datasets_.eval);
  for (const auto& [name, ds] : datasets_.named_evals) sets.emplace_back("eval_" + name, ds);
  json merged = json::object();
  for (const auto& [prefix, ds] : sets) {
    const bool tracking = ctx_.memory.start("eval");
    const auto start = std::chrono::steady_clock::now();
    const bool loss_only = ctx_.hooks.has_compute_metrics() ? ctx_.args.prediction_loss_only : true;
    PredictionOutput out = evaluation_loop(ds, prefix, loss_only);
    const double runtime = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    json metrics = out.metrics;
    metrics[prefix + "_runtime"] = round_to(runtime, 1e4);
    if (runtime > 0) {
      const double steps = std::ceil(static_cast<double>(out.num_samples) / static_cast<double>(ctx_.args.per_device_eval_batch_size));
      metrics[prefix + "_samples_per_second"] = round_to(static_cast<double>(out.num_samples) / runtime, 1e3);
      metrics[prefix + "_steps_per_second"] = round_to(steps / runtime, 1e3);
    }
    ctx_.log(metrics);
    metrics["epoch"] = ctx_.loop.state.epoch;  // HF: log() adds epoch (and the tokens seen) to the dict it was given
    if (ctx_.args.include_num_input_tokens_seen != "no") metrics["num_input_tokens_seen"] = ctx_.loop.state.num_input_tokens_seen;
    if (tracking) ctx_.memory.stop("eval", metrics);
    ctx_.callbacks.fire(Event::kEvaluate, ctx_.loop.state, ctx_.loop.control, metrics);
    for (auto it = metrics.begin(); it != metrics.end(); ++it) merged[it.key()] = it.value();
  }
  return merged;
}

PredictionOutput Evaluator::predict() {
  dist::Phase phase("predict");
  if (!datasets_.test) throw RecipeError("prediction needs datasets.test");
  const bool tracking = ctx_.memory.start("test");
  const auto start = std::chrono::steady_clock::now();
  PredictionOutput out = evaluation_loop(datasets_.test, "test", ctx_.args.prediction_loss_only);
  const double runtime = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.metrics["test_runtime"] = round_to(runtime, 1e4);
  if (runtime > 0) {
    const double steps = std::ceil(static_cast<double>(out.num_samples) / static_cast<double>(ctx_.args.per_device_eval_batch_size));
    out.metrics["test_samples_per_second"] = round_to(static_cast<double>(out.num_samples) / runtime, 1e3);
    out.metrics["test_steps_per_second"] = round_to(steps / runtime, 1e3);
  }
  if (tracking) ctx_.memory.stop("test", out.metrics);
  ctx_.callbacks.fire(Event::kPredict, ctx_.loop.state, ctx_.loop.control, out.metrics);  // predict does not log (HF)
  return out;
}

// Evaluation requested by the flow (or eval_on_start): evaluate, then step a
// ReduceLROnPlateau schedule with the watched metric (not for eval_on_start).
json Evaluator::run_evaluation(bool from_training) {
  json metrics = evaluate();
  if (!from_training) return metrics;
  if (optim::Scheduler* schedule = ctx_.opt.scheduler.get(); schedule && schedule->watches_metric()) {
    std::string key = *ctx_.args.metric_for_best_model;
    if (key.rfind("eval_", 0) != 0) key = "eval_" + key;
    if (!metrics.contains(key) || !metrics[key].is_number())
      throw ArgumentError("args.metric_for_best_model: reduce_lr_on_plateau watches \"" + key + "\", which the evaluation did not produce");
    schedule->on_metric(metrics[key].get<double>());
  }
  return metrics;
}

// HF _determine_best_metric: strict improvement per greater_is_better.
void Evaluator::update_best_metric(const json& metrics, bool& is_new_best) {
  std::string key = *ctx_.args.metric_for_best_model;
  if (key.rfind("eval_", 0) != 0) key = "eval_" + key;
  if (metrics.contains(key) && !metrics[key].is_number())
    throw ArgumentError("args.metric_for_best_model: \"" + key + "\" is " + metrics[key].dump() + ", not a number; compute_metrics must return a number for it");
  if (!metrics.contains(key)) {
    std::string available;
    for (auto it = metrics.begin(); it != metrics.end(); ++it)
      if (it.key() != "epoch") available += (available.empty() ? "" : ", ") + it.key();
    throw ArgumentError("args.metric_for_best_model: \"" + *ctx_.args.metric_for_best_model + "\" is not among the evaluation metrics (" +
                        available + "); return it from compute_metrics or choose one of these");
  }
  const double value = metrics[key].get<double>();
  const bool greater = ctx_.args.greater_is_better.value_or(true);
  is_new_best = !ctx_.loop.state.best_metric || (greater ? value > *ctx_.loop.state.best_metric : value < *ctx_.loop.state.best_metric);
  if (is_new_best) {
    ctx_.loop.state.best_metric = value;
    if (ctx_.args.save_strategy != "no") ctx_.loop.state.best_global_step = ctx_.loop.state.global_step;
  }
}

}  // namespace runner::train
