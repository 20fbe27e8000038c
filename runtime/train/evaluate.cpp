// Evaluation and prediction (HF evaluate / predict / evaluation_loop / prediction_step):
// the loss is the sample-weighted mean of batch losses (a partial last batch counts by its
// size); predictions and labels are concatenated over batches, padded with -100 where
// their lengths differ, and handed to compute_metrics. Under data parallelism the set is
// split across ranks and the results gathered back in dataset order.
#include <c10/core/GradMode.h>
#include <cmath>

#include "runtime/core/errors.h"
#include "runtime/log/log.h"
#include "runtime/models/deferred_weights.h"
#include "runtime/optim/scheduler.h"
#include "runtime/models/host_facts.h"
#include "runtime/device/autocast.h"
#include "runtime/train/eval_accumulator.h"
#include "runtime/train/eval_gather.h"
#include "runtime/train/trainer.h"

namespace runner::train {

using nlohmann::json;

namespace {
double round_to(double v, double scale) { return std::round(v * scale) / scale; }
}  // namespace

PredictionResult Trainer::prediction_step(const Batch& batch, bool prediction_loss_only) {
  const AutocastGuard autocast = this->autocast();
  if (auto r = hooks_->prediction_step(*model_, batch, prediction_loss_only)) return *r;
  PredictionResult r;
  bool has_labels = !call_.label_names.empty();
  for (const auto& name : call_.label_names) has_labels = has_labels && batch.count(name);
  if (has_labels) r.labels = batch.at(call_.label_names.front());  // captured before the forward
  models::TensorMap outputs;
  if (has_labels) {
    LossContext ctx;
    ctx.training = false;
    ctx.micro_items = ctx.num_items_in_batch = count_items(batch, call_.label_names, model_->shifts_labels());
    LossResult lr = compute_loss(batch, ctx);
    if (lr.loss.defined()) r.loss = lr.loss.detach().mean();
    outputs = std::move(lr.outputs);
  } else {
    outputs = call_model(*model_, batch, call_);
  }
  if (prediction_loss_only) return {r.loss, {}, {}};
  if (args_.predict_with_generate) {
    r.logits = generate_predictions(batch);  // generated ids are the predictions
    return r;
  }
  r.logits = logits_of(outputs);
  if (r.logits.defined()) r.logits = r.logits.detach();
  // Autocast (or a bf16/fp16 model) gives low-precision logits; metrics get fp32.
  if (r.logits.defined() && (r.logits.scalar_type() == at::kBFloat16 || r.logits.scalar_type() == at::kHalf)) r.logits = r.logits.to(at::kFloat);
  return r;
}

PredictionOutput Trainer::evaluation_loop(const data::DatasetPtr& ds, const std::string& prefix, bool prediction_loss_only) {
  models::materialize(*model_);  // ZeRO-3 without training: weights still in their files load whole
  // Under data parallelism each rank evaluates its slice of every global batch and the
  // results are gathered in dataset order (eval_gather.h). Per-batch metrics
  // (batch_eval_metrics), dataloader_drop_last (a sharded set would drop a partial global
  // batch, not a partial batch) and sets too small to give every rank a batch run whole on
  // every rank instead.
  const int64_t B = args_.per_device_eval_batch_size, W = dp_->world();
  const bool shard = W > 1 && !args_.batch_eval_metrics && !args_.dataloader_drop_last && ds->size() > B * (W - 1);
  data::DataLoader loader = make_loader(ds, /*train=*/false, B, shard);
  const int64_t n_batches = shard ? (ds->size() + B * W - 1) / (B * W) : loader.num_batches();
  // This rank's rows per global batch, per gathered tensor (a hook may return other row
  // counts than examples, e.g. flattened token logits).
  std::vector<int64_t> loss_rows, pred_rows, label_rows, input_rows;
  auto rows = [](const at::Tensor& t) -> int64_t { return !t.defined() ? 0 : t.dim() == 0 ? 1 : t.size(0); };
  // HF: bf16/fp16_full_eval cast the model itself, for good, when evaluating outside training.
  const std::optional<at::ScalarType> full_eval = in_training_      ? std::nullopt
                                                  : args_.fp16_full_eval ? std::optional(at::kHalf)
                                                  : args_.bf16_full_eval ? std::optional(at::kBFloat16)
                                                                         : std::nullopt;
  if (full_eval) model_->to(*full_eval);
  auto prepare = [&](const Batch& host) {
    Batch batch = on_device(host);
    if (full_eval)  // float inputs follow the model's dtype; labels keep theirs
      for (auto& [name, t] : batch)
        if (t.defined() && t.is_floating_point() && std::find(call_.label_names.begin(), call_.label_names.end(), name) == call_.label_names.end())
          t = t.to(*full_eval);
    return batch;
  };
  const bool was_training = model_->is_training();
  model_->eval();
  const bool want_inputs = std::find(args_.include_for_metrics.begin(), args_.include_for_metrics.end(), "inputs") != args_.include_for_metrics.end();
  const bool want_losses = std::find(args_.include_for_metrics.begin(), args_.include_for_metrics.end(), "loss") != args_.include_for_metrics.end();
  const std::string input_field = main_input_name(*ds);
  at::Tensor losses;  // (N) each batch's loss repeated per example, as HF does
  EvalPrediction all;      // on the host
  EvalPrediction pending;  // on the device, moved to `all` every eval_accumulation_steps batches
  at::Tensor pending_losses;
  const int64_t flush_every = args_.eval_accumulation_steps.value_or(1);
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
  {
    c10::NoGradGuard no_grad;
    for (int64_t b = 0; b < n_batches; ++b) {
      if (b >= loader.num_batches()) {  // this rank's slice of the last global batch is empty
        for (auto* v : {&loss_rows, &pred_rows, &label_rows, &input_rows}) v->push_back(0);
        if (dp_->lockstep()) prediction_step(prepare(loader.batch(0)), prediction_loss_only);  // ZeRO-3 gathers inside forward: join them
        continue;
      }
      const Batch host = loader.batch(b);
      Batch batch = prepare(host);
      const models::HostFacts facts = models::host_facts(host, batch);
      models::check_packing_is_honoured(*model_, facts);
      const models::HostFactsScope known(facts);  // the model's checks read the host copy
      const int64_t n = data::batch_size_of(batch);
      out.num_samples += n;
      PredictionResult r = prediction_step(batch, prediction_loss_only);
      at::Tensor batch_losses = r.loss.defined() ? r.loss.reshape({1}).expand({n}).to(at::kDouble) : at::Tensor();
      if (batch_losses.defined()) pending_losses = pending_losses.defined() ? at::cat({pending_losses, batch_losses}) : batch_losses.clone();
      if (r.logits.defined()) {
        if (auto p = hooks_->preprocess_logits_for_metrics(r.logits, r.labels)) r.logits = p->detach();
      }
      at::Tensor inputs = want_inputs && batch.count(input_field) ? batch.at(input_field) : at::Tensor();
      if (args_.batch_eval_metrics) {
        // Constant memory: metrics are computed per batch, nothing is accumulated.
        EvalPrediction p{r.logits, r.labels, inputs, want_losses ? batch_losses : at::Tensor()};
        batch_metrics = hooks_->compute_metrics(p, /*compute_result=*/b == n_batches - 1);
      } else {
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
      callbacks_.fire(Event::kPredictionStep, state_, control_, json{{"split", prefix}, {"batch", b + 1}, {"num_batches", n_batches}});
    }
  }
  flush();
  model_->train(was_training);
  if (shard) {
    losses = gather_in_dataset_order(*dp_, losses, loss_rows);
    all.predictions = gather_in_dataset_order(*dp_, all.predictions, pred_rows);
    all.label_ids = gather_in_dataset_order(*dp_, all.label_ids, label_rows);
    if (want_inputs) all.inputs = gather_in_dataset_order(*dp_, all.inputs, input_rows);
    std::vector<double> total{static_cast<double>(out.num_samples)};
    dp_->sum(total);
    out.num_samples = static_cast<int64_t>(total[0]);
  }
  if (want_losses && losses.defined()) all.losses = losses;

  json metrics = json::object();
  if (args_.batch_eval_metrics) {
    metrics = batch_metrics.is_object() ? batch_metrics : json::object();
  } else if (hooks_->has_compute_metrics() && all.predictions.defined() && all.label_ids.defined()) {
    metrics = hooks_->compute_metrics(all, /*compute_result=*/true);
  }
  if (losses.defined()) metrics[prefix + "_loss"] = losses.mean().item<double>();
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

json Trainer::evaluate() {
  if (!datasets_.has_eval()) throw RecipeError("evaluation needs an eval dataset (datasets.eval)");
  std::vector<std::pair<std::string, data::DatasetPtr>> sets;
  if (datasets_.eval) sets.emplace_back("eval", datasets_.eval);
  for (const auto& [name, ds] : datasets_.named_evals) sets.emplace_back("eval_" + name, ds);
  json merged = json::object();
  for (const auto& [prefix, ds] : sets) {
    const bool tracking = memory_.start("eval");
    const auto start = std::chrono::steady_clock::now();
    const bool loss_only = hooks_->has_compute_metrics() ? args_.prediction_loss_only : true;
    PredictionOutput out = evaluation_loop(ds, prefix, loss_only);
    const double runtime = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    json metrics = out.metrics;
    metrics[prefix + "_runtime"] = round_to(runtime, 1e4);
    if (runtime > 0) {
      const double steps = std::ceil(static_cast<double>(out.num_samples) / static_cast<double>(args_.per_device_eval_batch_size));
      metrics[prefix + "_samples_per_second"] = round_to(static_cast<double>(out.num_samples) / runtime, 1e3);
      metrics[prefix + "_steps_per_second"] = round_to(steps / runtime, 1e3);
    }
    log(metrics);
    metrics["epoch"] = state_.epoch;  // HF: log() adds epoch to the dict it was given
    if (tracking) memory_.stop("eval", metrics);
    callbacks_.fire(Event::kEvaluate, state_, control_, metrics);
    for (auto it = metrics.begin(); it != metrics.end(); ++it) merged[it.key()] = it.value();
  }
  return merged;
}

PredictionOutput Trainer::predict() {
  if (!datasets_.test) throw RecipeError("prediction needs datasets.test");
  const bool tracking = memory_.start("test");
  const auto start = std::chrono::steady_clock::now();
  PredictionOutput out = evaluation_loop(datasets_.test, "test", args_.prediction_loss_only);
  const double runtime = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.metrics["test_runtime"] = round_to(runtime, 1e4);
  if (runtime > 0) {
    const double steps = std::ceil(static_cast<double>(out.num_samples) / static_cast<double>(args_.per_device_eval_batch_size));
    out.metrics["test_samples_per_second"] = round_to(static_cast<double>(out.num_samples) / runtime, 1e3);
    out.metrics["test_steps_per_second"] = round_to(steps / runtime, 1e3);
  }
  if (tracking) memory_.stop("test", out.metrics);
  callbacks_.fire(Event::kPredict, state_, control_, out.metrics);  // predict does not log (HF)
  return out;
}

// Evaluation requested by the flow (or eval_on_start): evaluate, then step a
// ReduceLROnPlateau schedule with the watched metric (not for eval_on_start).
json Trainer::run_evaluation(bool from_training) {
  json metrics = evaluate();
  if (!from_training) return metrics;
  if (auto* plateau = dynamic_cast<optim::PlateauScheduler*>(scheduler_.get())) {
    std::string key = *args_.metric_for_best_model;
    if (key.rfind("eval_", 0) != 0) key = "eval_" + key;
    if (!metrics.contains(key) || !metrics[key].is_number())
      throw ArgumentError("args.metric_for_best_model: reduce_lr_on_plateau watches \"" + key + "\", which the evaluation did not produce");
    plateau->on_metric(metrics[key].get<double>());
  }
  return metrics;
}

// HF _determine_best_metric: strict improvement per greater_is_better.
void Trainer::update_best_metric(const json& metrics, bool& is_new_best) {
  std::string key = *args_.metric_for_best_model;
  if (key.rfind("eval_", 0) != 0) key = "eval_" + key;
  if (!metrics.contains(key) || !metrics[key].is_number()) {
    std::string available;
    for (auto it = metrics.begin(); it != metrics.end(); ++it)
      if (it.key() != "epoch") available += (available.empty() ? "" : ", ") + it.key();
    throw ArgumentError("args.metric_for_best_model: \"" + *args_.metric_for_best_model + "\" is not among the evaluation metrics (" +
                        available + "); return it from compute_metrics or choose one of these");
  }
  const double value = metrics[key].get<double>();
  const bool greater = args_.greater_is_better.value_or(true);
  is_new_best = !state_.best_metric || (greater ? value > *state_.best_metric : value < *state_.best_metric);
  if (is_new_best) {
    state_.best_metric = value;
    if (args_.save_strategy != "no") state_.best_global_step = state_.global_step;
  }
}

}  // namespace runner::train
