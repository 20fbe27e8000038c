// Evaluation and prediction (HF evaluate / predict / evaluation_loop / prediction_step): the
// loss is the sample-weighted mean of batch losses (a partial last batch counts by its size);
// predictions and labels are concatenated over batches, padded with -100 where their lengths
// differ, and handed to compute_metrics. Under data parallelism the set is split across ranks
// and the results gathered back in dataset order. With predict_with_generate the predictions
// are generated ids (generate_eval.cpp). Also the best-metric bookkeeping evaluation feeds.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/train/run_context.h"

namespace runner::train {

struct PredictionOutput {
  at::Tensor predictions, label_ids;  // undefined when not collected
  nlohmann::json metrics;
  int64_t num_samples = 0;
};

class Evaluator {
 public:
  Evaluator(RunContext& ctx, const Datasets& datasets) : ctx_(ctx), datasets_(datasets) {}

  // Every eval dataset; metrics prefixed eval_ (eval_<name>_ for named sets); logged, and
  // on_evaluate fired for each.
  nlohmann::json evaluate();
  PredictionOutput predict();  // datasets.test, prefix test_ (on_predict; not logged, as HF)
  // An evaluation the flow asked for (or eval_on_start): evaluate, then step a
  // ReduceLROnPlateau schedule with the watched metric (not for eval_on_start).
  nlohmann::json run_evaluation(bool from_training);
  // HF _determine_best_metric: strict improvement per greater_is_better.
  void update_best_metric(const nlohmann::json& metrics, bool& is_new_best);

 private:
  PredictionOutput evaluation_loop(const data::DatasetPtr& ds, const std::string& prefix, bool prediction_loss_only);
  // `stand_in`: a batch that only joins ZeRO-3's gathers (this rank's slice is empty).
  PredictionResult prediction_step(const Batch& batch, bool prediction_loss_only, bool stand_in = false);
  at::Tensor generate_predictions(const Batch& batch);  // predict_with_generate (generate_eval.cpp)

  RunContext& ctx_;
  const Datasets& datasets_;
  bool warned_generation_length_ = false;  // predict_with_generate: prompts at generation_max_length
  MetricMeans metrics_;  // compute_loss's named values over one evaluation loop
  bool loss_without_labels_ = false;  // this loop computes the loss of batches without labels
};

}  // namespace runner::train
