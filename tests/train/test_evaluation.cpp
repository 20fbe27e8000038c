// Evaluation and prediction semantics (HF evaluation_loop / prediction_step): predictions
// and labels concatenated with -100 padding, compute_metrics inputs and prefixes,
// include_for_metrics, batch_eval_metrics, preprocess_logits_for_metrics, named eval sets,
// prediction_loss_only, and predict's test_ metrics.
#include <gmock/gmock.h>

#include "runtime/train/eval_accumulator.h"
#include "tests/train/train_fixture.h"

using namespace runner;
using namespace runner::testing;

namespace {

// A sequence model whose output length follows the batch (examples in batch b have
// length 2 + b), to exercise padding across batches.
class VariableLength : public models::Module {
 public:
  VariableLength() : Module("VariableLength") { w = register_parameter("w", at::ones({1})); }
  bool takes_batch() const override { return true; }
  models::TensorMap forward_batch_impl(const models::TensorMap& b) override {
    const auto& ids = b.at("input_ids");  // (B, T)
    at::Tensor logits = ids.to(at::kFloat) * w;
    models::TensorMap o{{"logits", logits}};
    if (b.count("labels")) o["loss"] = at::mse_loss(logits, b.at("labels").to(at::kFloat));
    return o;
  }
  at::Tensor w;
};

class Capture : public train::Hooks {
 public:
  bool has_compute_metrics() const override { return true; }
  nlohmann::json compute_metrics(const train::EvalPrediction& p, bool compute_result) override {
    seen.push_back(p);
    results.push_back(compute_result);
    return {{"n", p.predictions.defined() ? p.predictions.size(0) : 0}, {"eval_custom", 1.0}};
  }
  std::optional<at::Tensor> preprocess_logits_for_metrics(const at::Tensor& logits, const at::Tensor&) override {
    if (!argmax) return std::nullopt;
    return logits.sum(-1);
  }
  std::vector<train::EvalPrediction> seen;
  std::vector<bool> results;
  bool argmax = false;
};

std::shared_ptr<data::ExampleListDataset> ragged_eval() {
  // 5 examples; batch size 2 → batches of lengths 2, 3, 4 (the last batch has 1 example)
  std::vector<data::Example> ex;
  for (int i = 0; i < 5; ++i) {
    const int64_t len = 2 + i / 2;
    ex.push_back({{"input_ids", at::full({len}, i + 1, at::kLong)}, {"labels", at::full({len}, i, at::kLong)}});
  }
  return std::make_shared<data::ExampleListDataset>(ex);
}

// Per-batch padding collator: pad input_ids with 0 and labels with -100 to the batch max.
data::Batch pad_collate(const std::vector<data::Example>& ex) {
  int64_t len = 0;
  for (const auto& e : ex) len = std::max(len, e.at("input_ids").size(0));
  std::vector<at::Tensor> ids, labels;
  for (const auto& e : ex) {
    const int64_t pad = len - e.at("input_ids").size(0);
    ids.push_back(at::constant_pad_nd(e.at("input_ids"), {0, pad}, 0));
    labels.push_back(at::constant_pad_nd(e.at("labels"), {0, pad}, -100));
  }
  return {{"input_ids", at::stack(ids)}, {"labels", at::stack(labels)}};
}

std::unique_ptr<train::Trainer> eval_trainer(TrainingArguments a, std::shared_ptr<train::Hooks> hooks, train::Datasets ds) {
  a.per_device_eval_batch_size = 2;
  a.finalize();
  train::TrainerOptions o;
  o.collator = pad_collate;
  return std::make_unique<train::Trainer>(a, std::make_shared<VariableLength>(), ds, hooks, std::vector<std::shared_ptr<Callback>>{}, o);
}

}  // namespace

TEST(EvalAccumulator, PadsTheSecondDimensionWithMinus100) {
  auto a = at::ones({2, 3}), b = at::full({1, 5}, 2.0);
  auto c = train::concat_padded(a, b);
  EXPECT_EQ(c.sizes(), at::IntArrayRef({3, 5}));
  EXPECT_EQ(c[0][4].item<double>(), -100);
  EXPECT_EQ(c[2][4].item<double>(), 2);
  EXPECT_TRUE(train::concat_padded(at::ones({2}), at::ones({3})).equal(at::ones({5})));
  EXPECT_THROW(train::concat_padded(at::ones({1, 2, 3}), at::ones({1, 3, 4})), RecipeError);
}

TEST(Evaluation, PredictionsAndLabelsArePaddedAcrossBatches) {
  auto hooks = std::make_shared<Capture>();
  auto t = eval_trainer(regression_args("eval_pad"), hooks, {nullptr, ragged_eval(), nullptr});
  auto m = t->evaluate();
  ASSERT_EQ(hooks->seen.size(), 1u);
  const auto& p = hooks->seen[0];
  EXPECT_EQ(p.predictions.sizes(), at::IntArrayRef({5, 4}));
  EXPECT_EQ(p.label_ids.sizes(), at::IntArrayRef({5, 4}));
  EXPECT_EQ(p.label_ids[0][3].item<int64_t>(), -100);  // first batch had length 2
  EXPECT_EQ(p.label_ids[4][3].item<int64_t>(), 4);       // last example is full length
  EXPECT_FALSE(p.inputs.defined());
  EXPECT_FALSE(p.losses.defined());
  EXPECT_EQ(m["eval_n"], 5);              // metric names get the prefix
  EXPECT_EQ(m["eval_custom"], 1.0);       // unless they already have it
  EXPECT_TRUE(m.contains("eval_loss"));
  EXPECT_EQ(hooks->results, std::vector<bool>{true});
}

TEST(Evaluation, IncludeForMetricsAndPreprocess) {
  auto hooks = std::make_shared<Capture>();
  hooks->argmax = true;
  auto a = regression_args("eval_include");
  a.include_for_metrics = {"inputs", "loss"};
  auto t = eval_trainer(a, hooks, {nullptr, ragged_eval(), nullptr});
  t->evaluate();
  const auto& p = hooks->seen.at(0);
  EXPECT_EQ(p.predictions.sizes(), at::IntArrayRef({5}));  // preprocess reduced each row
  EXPECT_EQ(p.inputs.sizes(), at::IntArrayRef({5, 4}));
  EXPECT_EQ(p.losses.sizes(), at::IntArrayRef({5}));  // each batch's loss, per example
}

TEST(Evaluation, BatchEvalMetricsCallsPerBatchWithComputeResultLast) {
  auto hooks = std::make_shared<Capture>();
  auto a = regression_args("eval_batch");
  a.batch_eval_metrics = true;
  auto t = eval_trainer(a, hooks, {nullptr, ragged_eval(), nullptr});
  auto m = t->evaluate();
  EXPECT_EQ(hooks->results, (std::vector<bool>{false, false, true}));
  EXPECT_EQ(m["eval_n"], 1);  // the last batch's result
}

// HF calls a batch compute_metrics only with logits and labels, and predict() keeps its
// predictions (its output) even with batch_eval_metrics.
TEST(Evaluation, BatchEvalMetricsSkipsLossOnlyBatchesAndPredictStillReturnsPredictions) {
  auto hooks = std::make_shared<Capture>();
  auto a = regression_args("eval_batch_loss_only");
  a.batch_eval_metrics = true;
  a.prediction_loss_only = true;
  auto t = eval_trainer(a, hooks, {nullptr, ragged_eval(), nullptr});
  auto m = t->evaluate();
  EXPECT_TRUE(hooks->seen.empty());
  EXPECT_TRUE(m.contains("eval_loss"));

  auto h2 = std::make_shared<Capture>();
  auto b = regression_args("predict_batch");
  b.batch_eval_metrics = true;
  auto t2 = eval_trainer(b, h2, {nullptr, nullptr, ragged_eval()});
  auto out = t2->predict();
  ASSERT_TRUE(out.predictions.defined());
  EXPECT_EQ(out.predictions.sizes(), at::IntArrayRef({5, 4}));
  EXPECT_EQ(out.label_ids.sizes(), at::IntArrayRef({5, 4}));
  EXPECT_EQ(h2->results, (std::vector<bool>{false, false, true}));  // still per batch
}

TEST(Evaluation, NamedEvalSetsArePrefixedByName) {
  auto hooks = std::make_shared<Capture>();
  train::Datasets ds;
  ds.named_evals = {{"a", ragged_eval()}, {"b", ragged_eval()}};
  auto t = eval_trainer(regression_args("eval_named"), hooks, ds);
  auto m = t->evaluate();
  for (const char* k : {"eval_a_loss", "eval_a_n", "eval_b_loss", "eval_b_runtime"}) EXPECT_TRUE(m.contains(k)) << k;
}

TEST(Evaluation, WithoutComputeMetricsOnlyTheLossIsCollected) {
  auto t = eval_trainer(regression_args("eval_lossonly"), nullptr, {nullptr, ragged_eval(), nullptr});
  auto m = t->evaluate();
  EXPECT_TRUE(m.contains("eval_loss"));
  EXPECT_EQ(m.size(), 5u);  // loss, runtime, samples/s, steps/s, epoch
}

TEST(Evaluation, PredictReturnsPredictionsAndTestMetricsWithoutLogging) {
  auto hooks = std::make_shared<Capture>();
  auto t = eval_trainer(regression_args("predict"), hooks, {nullptr, nullptr, ragged_eval()});
  auto out = t->predict();
  EXPECT_EQ(out.predictions.sizes(), at::IntArrayRef({5, 4}));
  EXPECT_EQ(out.num_samples, 5);
  for (const char* k : {"test_loss", "test_n", "test_runtime", "test_samples_per_second", "test_steps_per_second"})
    EXPECT_TRUE(out.metrics.contains(k)) << k;
  EXPECT_TRUE(t->state().log_history.empty());
}

TEST(Evaluation, PredictionLossOnlySkipsPredictions) {
  auto hooks = std::make_shared<Capture>();
  auto a = regression_args("predict_lossonly");
  a.prediction_loss_only = true;
  auto t = eval_trainer(a, hooks, {nullptr, nullptr, ragged_eval()});
  auto out = t->predict();
  EXPECT_FALSE(out.predictions.defined());
  EXPECT_TRUE(hooks->seen.empty());
  EXPECT_TRUE(out.metrics.contains("test_loss"));
}

TEST(Evaluation, MissingEvalDatasetWithAStrategyIsAnError) {
  auto a = regression_args("eval_missing");
  a.eval_strategy = "epoch";
  a.finalize();
  EXPECT_THROW(train::Trainer(a, std::make_shared<RegressionModel>(), {regression_data(8), nullptr, nullptr}, nullptr, {}), RecipeError);
}
