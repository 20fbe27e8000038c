// The gradient-accumulation contract of DESIGN.md: batch 8 × accumulation 1 and batch 2 ×
// accumulation 4 give the same weights, also for token losses with -100 padding and a
// partial last window, because the runtime weights each micro-batch's mean loss by
// micro_items / num_items_in_batch.
#include <gtest/gtest.h>

#include <filesystem>

#include "runtime/models/layers.h"
#include "runtime/core/callback.h"
#include "runtime/models/losses.h"
#include "runtime/train/trainer.h"

using namespace runner;
using namespace runner::train;

namespace {

// A token classifier: embedding → linear, cross-entropy over non-ignored tokens (mean).
class TokenModel : public models::Module {
 public:
  TokenModel() : Module("TokenModel") {
    at::manual_seed(3);
    emb = register_module("emb", std::make_shared<models::Embedding>(11, 6));
    head = register_module("head", std::make_shared<models::Linear>(6, 5));
  }
  bool takes_batch() const override { return true; }
  models::TensorMap forward_batch_impl(const models::TensorMap& b) override {
    auto logits = head->forward(emb->forward(b.at("input_ids")));  // (B, T, 5)
    auto loss = at::cross_entropy_loss(logits.flatten(0, 1), b.at("labels").flatten(), {}, at::Reduction::Mean, -100);
    return {{"loss", loss}, {"logits", logits}};
  }
  std::shared_ptr<models::Module> emb, head;
};

// The same, predicting token t+1 at t like a causal LM: its loss averages labels[:, 1:].
class ShiftingTokenModel : public TokenModel {
 public:
  bool shifts_labels() const override { return true; }
  models::TensorMap forward_batch_impl(const models::TensorMap& b) override {
    auto logits = head->forward(emb->forward(b.at("input_ids")));
    return {{"loss", models::shifted_lm_loss(logits, b.at("labels"), "ShiftingTokenModel")}, {"logits", logits}};
  }
};

// HF's behaviour for a model that ignores num_items_in_batch: each micro-batch's mean
// divided by the accumulation steps, with the runner's item weighting switched off.
class MeanOfMeansHooks : public Hooks {
 public:
  explicit MeanOfMeansHooks(int64_t ga) : ga_(ga) {}
  std::optional<LossResult> compute_loss(models::Module& m, const Batch& b, LossContext& ctx) override {
    ctx.loss_is_normalized = true;
    auto out = m.forward_batch(b);
    return LossResult{out.at("loss") / static_cast<double>(ga_), out};
  }

 private:
  int64_t ga_;
};

// Regression through a C++ compute_loss hook (mean squared error).
class MseHooks : public Hooks {
 public:
  std::optional<LossResult> compute_loss(models::Module& m, const Batch& b, LossContext&) override {
    auto pred = m.forward(b.at("x"));
    return LossResult{at::mse_loss(pred, b.at("labels")), {{"logits", pred}}};
  }
};

TrainingArguments sgd_args(int64_t bs, int64_t ga, const std::string& name) {
  TrainingArguments a;
  a.output_dir = (std::filesystem::temp_directory_path() / ("runner_acc_" + std::to_string(::getpid())) / name).string();
  a.per_device_train_batch_size = bs;
  a.gradient_accumulation_steps = ga;
  a.num_train_epochs = 2;
  a.learning_rate = 0.1;
  a.optim = "sgd";
  a.lr_scheduler_type = "constant";
  a.save_strategy = "no";
  a.logging_strategy = "no";
  a.finalize();
  return a;
}

at::Tensor train_regression(int64_t bs, int64_t ga, int64_t n) {
  at::manual_seed(0);
  auto x = at::randn({n, 3});
  auto y = x.matmul(at::tensor({1.0f, -2.0f, 0.5f}).view({3, 1})) + 0.3;
  auto ds = std::make_shared<data::TensorDataset>(data::Batch{{"x", x}, {"labels", y}});
  at::manual_seed(1);
  auto model = std::make_shared<models::Linear>(3, 1);
  Trainer t(sgd_args(bs, ga, "reg"), model, {ds, nullptr, nullptr}, std::make_shared<MseHooks>(), {});
  t.train();
  return at::cat({model->weight.flatten(), model->bias.flatten()}).detach().clone();
}

template <class Model = TokenModel>
at::Tensor train_tokens(int64_t bs, int64_t ga, int64_t n, std::shared_ptr<Hooks> hooks = nullptr) {
  at::manual_seed(5);
  auto ids = at::randint(0, 11, {n, 7});
  auto labels = at::randint(0, 5, {n, 7});
  // Ragged padding: example i keeps its first 1 + (i % 7) tokens, the rest are -100.
  auto keep = at::arange(7).unsqueeze(0).lt((at::arange(n) % 7 + 1).unsqueeze(1));
  labels = labels.masked_fill(keep.logical_not(), -100);
  auto ds = std::make_shared<data::TensorDataset>(data::Batch{{"input_ids", ids}, {"labels", labels}});
  auto model = std::make_shared<Model>();
  Trainer t(sgd_args(bs, ga, "tok"), model, {ds, nullptr, nullptr}, std::move(hooks), {});
  t.train();
  std::vector<at::Tensor> flat;
  for (auto& [name, p] : model->named_parameters()) flat.push_back(p.detach().flatten());
  return at::cat(flat).clone();
}

void expect_same(const at::Tensor& a, const at::Tensor& b) {
  const double rel = (a - b).norm().item<double>() / b.norm().item<double>();
  EXPECT_LT(rel, 1e-5) << "relative difference " << rel;
}

}  // namespace

TEST(Accumulation, RegressionBatch8EqualsBatch2Times4) { expect_same(train_regression(2, 4, 32), train_regression(8, 1, 32)); }

TEST(Accumulation, PartialLastWindow) {
  // 28 examples: windows of 8,8,8,4 samples whichever way they are cut into micro-batches.
  const auto full = train_regression(8, 1, 28);
  expect_same(train_regression(2, 4, 28), full);
  expect_same(train_regression(4, 2, 28), full);
}

TEST(Accumulation, TokenLossWithPaddingIsExact) {
  const auto full = train_tokens(8, 1, 32);
  expect_same(train_tokens(2, 4, 32), full);
  expect_same(train_tokens(1, 8, 32), full);
  expect_same(train_tokens(2, 4, 28), train_tokens(8, 1, 28));
}

TEST(Accumulation, ShiftedTokenLossWithPaddingIsExact) {
  // A causal LM's loss averages labels[:, 1:]; counting the unshifted labels (what HF does)
  // would weight these ragged micro-batches wrongly.
  const auto full = train_tokens<ShiftingTokenModel>(8, 1, 32);
  expect_same(train_tokens<ShiftingTokenModel>(2, 4, 32), full);
  expect_same(train_tokens<ShiftingTokenModel>(1, 8, 32), full);
  expect_same(train_tokens<ShiftingTokenModel>(4, 2, 28), train_tokens<ShiftingTokenModel>(8, 1, 28));
}

TEST(Accumulation, WithoutItemWeightingTheTokenTestWouldFail) {
  // The tests above can fail: averaging micro-batch means (the runner's weighting switched
  // off through loss_is_normalized) moves the weights away from the full batch's.
  const auto full = train_tokens(8, 1, 32);
  const auto mean_of_means = train_tokens(2, 4, 32, std::make_shared<MeanOfMeansHooks>(4));
  const double rel = (mean_of_means - full).norm().item<double>() / full.norm().item<double>();
  EXPECT_GT(rel, 1e-3);
  // ...while the same hook over one micro-batch per step is the full batch.
  expect_same(train_tokens(8, 1, 32, std::make_shared<MeanOfMeansHooks>(1)), full);
}

namespace {

// At on_pre_optimizer_step: whether the embedding's and the head's gradients are views of
// one flat buffer.
class GradStorage : public Callback {
 public:
  explicit GradStorage(std::shared_ptr<models::Module> m) : model_(std::move(m)) {}
  std::string name() const override { return "GradStorage"; }
  void on_event(Event e, const TrainingArguments&, const TrainerState&, TrainerControl&, const nlohmann::json&) override {
    if (e != Event::kPreOptimizerStep) return;
    const auto params = model_->named_parameters();
    const at::Tensor a = params.front().second.grad(), b = params.back().second.grad();
    ASSERT_TRUE(a.defined() && b.defined());
    shared.push_back(a.storage().is_alias_of(b.storage()));
  }
  std::vector<bool> shared;

 private:
  std::shared_ptr<models::Module> model_;
};

}  // namespace

// One process, no sharding: the fused AdamW (the default) and SGD read the gradients autograd
// made, with no flat gradient held (FlatParams::leave_grads_to_autograd); the separate-ops
// AdamW reads the flat buffer. Windows of two micro-steps; the same weights either way.
TEST(Accumulation, OneProcessFusedOptimizersReadAutogradsOwnGradients) {
  std::map<std::string, at::Tensor> weights;
  for (const char* optim : {"adamw_torch_fused", "sgd", "adamw_torch"}) {
    SCOPED_TRACE(optim);
    at::manual_seed(5);
    auto ds = std::make_shared<data::TensorDataset>(data::Batch{{"input_ids", at::randint(0, 11, {16, 7})}, {"labels", at::randint(0, 5, {16, 7})}});
    auto model = std::make_shared<TokenModel>();
    auto probe = std::make_shared<GradStorage>(model);
    TrainingArguments a = sgd_args(4, 2, std::string("grads_") + optim);
    a.optim = optim;
    a.finalize();
    Trainer t(a, model, {ds, nullptr, nullptr}, nullptr, {probe});
    t.train();
    ASSERT_EQ(probe->shared.size(), 4u);  // 2 epochs of 2 windows
    for (bool shared : probe->shared) EXPECT_EQ(shared, std::string(optim) == "adamw_torch");
    std::vector<at::Tensor> flat;
    for (auto& [name, p] : model->named_parameters()) flat.push_back(p.detach().flatten());
    weights[optim] = at::cat(flat).clone();
  }
  expect_same(weights["adamw_torch_fused"], weights["adamw_torch"]);
  // Optimizer offload in one process: its optimizer reads a host copy of the flat gradient,
  // so the buffer stays (written on each window's first accumulation) and trains alike.
  at::manual_seed(5);
  auto ds = std::make_shared<data::TensorDataset>(data::Batch{{"input_ids", at::randint(0, 11, {16, 7})}, {"labels", at::randint(0, 5, {16, 7})}});
  auto model = std::make_shared<TokenModel>();
  auto probe = std::make_shared<GradStorage>(model);
  TrainingArguments a = sgd_args(4, 2, "grads_offload");
  a.optim = "adamw_torch_fused";
  a.finalize();
  TrainerOptions options;
  options.parallel.offload_optimizer = true;  // what --fsdp "no_shard offload" resolves to (runtime/config)
  Trainer t(a, model, {ds, nullptr, nullptr}, nullptr, {probe}, options);
  t.train();
  ASSERT_EQ(probe->shared.size(), 4u);
  for (bool shared : probe->shared) EXPECT_TRUE(shared);
  std::vector<at::Tensor> flat;
  for (auto& [name, p] : model->named_parameters()) flat.push_back(p.detach().flatten());
  expect_same(at::cat(flat), weights["adamw_torch_fused"]);
}


namespace {

// At on_pre_optimizer_step: the global norm of the gradients there, from a callback that
// says it looks at them (observes_optimizer_step) or one that does not.
class GradNormProbe : public Callback {
 public:
  GradNormProbe(std::shared_ptr<models::Module> m, bool observes) : model_(std::move(m)), observes_(observes) {}
  std::string name() const override { return "GradNormProbe"; }
  bool observes_optimizer_step() const override { return observes_; }
  void on_event(Event e, const TrainingArguments&, const TrainerState&, TrainerControl&, const nlohmann::json&) override {
    if (e != Event::kPreOptimizerStep) return;
    double sq = 0;
    for (const auto& [name, p] : model_->named_parameters()) sq += p.grad().pow(2).sum().item<double>();
    norms.push_back(std::sqrt(sq));
  }
  std::vector<double> norms;

 private:
  std::shared_ptr<models::Module> model_;
  bool observes_;
};

}  // namespace

// max_grad_norm with the fused AdamW or SGD: the clip's scaling is folded into the
// optimizer's pass, so between the clip and the step the gradients are still unclipped; a
// callback that says it looks there sees them clipped, as in HF, and the weights are the
// same either way, and the same as the separate-ops AdamW's, which clips first.
TEST(Accumulation, ClippingFoldsIntoTheFusedStepUnlessACallbackLooks) {
  const double max_norm = 0.05;
  auto train = [&](const char* optim, bool observes, std::vector<double>* norms) {
    at::manual_seed(5);
    auto ds = std::make_shared<data::TensorDataset>(data::Batch{{"input_ids", at::randint(0, 11, {16, 7})}, {"labels", at::randint(0, 5, {16, 7})}});
    auto model = std::make_shared<TokenModel>();
    auto probe = std::make_shared<GradNormProbe>(model, observes);
    TrainingArguments a = sgd_args(4, 2, std::string("clip_") + optim + (observes ? "_observed" : ""));
    a.optim = optim;
    a.max_grad_norm = max_norm;
    a.learning_rate = 0.01;
    a.finalize();
    Trainer t(a, model, {ds, nullptr, nullptr}, nullptr, {probe});
    t.train();
    *norms = probe->norms;
    std::vector<at::Tensor> flat;
    for (auto& [name, p] : model->named_parameters()) flat.push_back(p.detach().flatten());
    return at::cat(flat).clone();
  };
  std::vector<double> norms;
  const at::Tensor separate = train("adamw_torch", false, &norms);
  ASSERT_EQ(norms.size(), 4u);
  for (double n : norms) EXPECT_LE(n, max_norm * (1 + 1e-5)) << "adamw_torch clips before on_pre_optimizer_step";
  for (const char* optim : {"adamw_torch_fused", "sgd"}) {
    SCOPED_TRACE(optim);
    std::vector<double> unobserved, observed;
    const at::Tensor folded = train(optim, false, &unobserved), clipped_first = train(optim, true, &observed);
    ASSERT_EQ(unobserved.size(), 4u);
    ASSERT_EQ(observed.size(), 4u);
    for (double n : unobserved) EXPECT_GT(n, max_norm * 1.5) << "folded: the step clips, so the gradients are raw before it";
    for (double n : observed) EXPECT_LE(n, max_norm * (1 + 1e-5)) << "a looking callback sees clipped gradients";
    expect_same(folded, clipped_first);
    if (std::string(optim) == "adamw_torch_fused") expect_same(folded, separate);
  }
}
