// Trainer::evaluate: HF evaluation_loop semantics for the loss (sample-weighted mean of
// batch losses, so a partial last batch counts by its size) and the speed metrics.
#include <cmath>

#include "runtime/core/errors.h"
#include "runtime/train/trainer.h"

namespace runner::train {

using nlohmann::json;

json Trainer::evaluate(const std::string& prefix) {
  const data::DatasetPtr& ds = prefix == "test" ? datasets_.test : datasets_.eval;
  if (!ds) throw RecipeError(prefix == "test" ? "prediction needs datasets.test" : "evaluation needs an eval dataset (datasets.eval)");
  const auto start = std::chrono::steady_clock::now();
  data::DataLoader loader = make_loader(ds, /*shuffle=*/false, args_.per_device_eval_batch_size);
  const bool was_training = model_->is_training();
  model_->eval();
  double loss_sum = 0.0;
  int64_t loss_count = 0, samples = 0;
  {
    at::NoGradGuard no_grad;
    for (int64_t b = 0; b < loader.num_batches(); ++b) {
      Batch batch = loader.batch(b);
      const int64_t n = data::batch_size_of(batch);
      samples += n;
      bool has_labels = true;
      for (const auto& name : call_.label_names) has_labels = has_labels && batch.count(name);
      if (has_labels) {
        LossContext ctx;
        ctx.training = false;
        ctx.micro_items = ctx.num_items_in_batch = count_items(batch, call_.label_names);
        LossResult r = compute_loss(batch, ctx);
        if (r.loss.defined()) {
          loss_sum += r.loss.item<double>() * static_cast<double>(n);
          loss_count += n;
        }
      } else {
        call_model(*model_, batch, call_);
      }
      callbacks_.fire(Event::kPredictionStep, state_, control_);
    }
  }
  model_->train(was_training);
  const double runtime = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  json metrics;
  if (loss_count > 0) metrics[prefix + "_loss"] = loss_sum / static_cast<double>(loss_count);
  metrics[prefix + "_runtime"] = std::round(runtime * 1e4) / 1e4;
  if (runtime > 0) {
    metrics[prefix + "_samples_per_second"] = std::round(static_cast<double>(samples) / runtime * 1e3) / 1e3;
    metrics[prefix + "_steps_per_second"] = std::round(static_cast<double>(loader.num_batches()) / runtime * 1e3) / 1e3;
  }
  if (prefix == "test") {
    callbacks_.fire(Event::kPredict, state_, control_, metrics);
    return metrics;
  }
  log(metrics);
  metrics["epoch"] = state_.epoch;
  callbacks_.fire(Event::kEvaluate, state_, control_, metrics);
  return metrics;
}

}  // namespace runner::train
