// The remaining HF Trainer rules, one test each: logging_first_step, logging per epoch,
// ratio *_steps, eval_delay, eval_on_start, the NaN/Inf logging filter, token counting,
// memory metrics, label smoothing, length grouping, optimizer and scheduler choices and
// hooks, training_step with its own backward, model_init.
#include <gmock/gmock.h>

#include "runtime/data/sampler.h"
#include "runtime/train/model_call.h"
#include "tests/train/train_fixture.h"

using namespace runner;
using namespace runner::testing;

TEST(Flow, LoggingFirstStepAndEpochStrategy) {
  auto a = regression_args("log_first");
  a.logging_first_step = true;
  a.logging_strategy = "epoch";
  auto run = train_regression(a);
  std::vector<int64_t> steps;
  for (const auto& e : run.trainer->state().log_history)
    if (e.contains("loss")) steps.push_back(e["step"]);
  EXPECT_EQ(steps, (std::vector<int64_t>{1, 8, 16, 24}));
}

TEST(Flow, RatioStepsAreFractionsOfMaxSteps) {
  auto a = regression_args("ratio");
  a.logging_steps = 0.25;  // ceil(24 · 0.25) = 6
  a.save_strategy = "steps";
  a.save_steps = 0.5;  // 12
  auto run = train_regression(a);
  EXPECT_EQ(run.trainer->state().logging_steps, 6);
  EXPECT_EQ(run.trainer->state().save_steps, 12);
  EXPECT_EQ(run.recorder->saves, (std::vector<int64_t>{12, 24}));
}

TEST(Flow, EvalDelayAndEvalOnStart) {
  auto a = regression_args("delay");
  a.eval_strategy = "epoch";
  a.eval_delay = 2;  // epochs for the epoch strategy
  a.eval_on_start = true;
  auto run = train_regression(a);
  // on start, then after epochs 2 and 3 (epoch 1 is before the delay)
  EXPECT_EQ(run.recorder->count("on_evaluate"), 3);
  EXPECT_EQ(run.recorder->evals[0]["epoch"], 0.0);
  EXPECT_EQ(run.recorder->evals[1]["epoch"], 2.0);
}

TEST(Flow, NanLossesAreFilteredFromLogsOnly) {
  class NanOnStep3 : public train::Hooks {
   public:
    std::optional<train::LossResult> compute_loss(models::Module& m, const train::Batch& b, train::LossContext&) override {
      auto out = m.forward_batch(b);
      at::Tensor loss = out["loss"];
      if (++calls == 3) loss = loss * std::nan("");
      return train::LossResult{loss, out};
    }
    int calls = 0;
  };
  auto a = regression_args("nanfilter");
  a.max_steps = 4;
  a.logging_steps = 4;
  a.max_grad_norm = 0;  // keep the NaN gradient from being clipped into the check
  a.learning_rate = 0.0;  // and from corrupting the weights
  auto run = train_regression(a, 64, 0, 0.0, std::make_shared<NanOnStep3>());
  EXPECT_TRUE(std::isfinite(run.recorder->logs[0]["loss"].get<double>()));
  auto b = regression_args("nofilter");
  b.max_steps = 4;
  b.logging_steps = 4;
  b.max_grad_norm = 0;
  b.learning_rate = 0.0;
  b.logging_nan_inf_filter = false;
  auto run_b = train_regression(b, 64, 0, 0.0, std::make_shared<NanOnStep3>());
  EXPECT_TRUE(std::isnan(run_b.recorder->logs[0]["loss"].get<double>()));
}

TEST(Flow, NumInputTokensSeen) {
  auto a = regression_args("tokens");
  a.include_num_input_tokens_seen = "all";
  a.max_steps = 3;
  a.logging_steps = 1;
  auto run = train_regression(a);
  EXPECT_EQ(run.trainer->state().num_input_tokens_seen, 3 * 8);  // x is (8, 1) per batch
  EXPECT_EQ(run.recorder->logs[1]["num_input_tokens_seen"], 16);
  EXPECT_TRUE(run.recorder->logs[1].contains("train_tokens_per_second"));
}

TEST(Flow, MemoryMetricsUnlessSkipped) {
  auto a = regression_args("memory");
  a.skip_memory_metrics = false;
  a.max_steps = 2;
  auto run = train_regression(a);
  for (const char* k : {"train_mem_cpu_alloc_delta", "train_mem_cpu_peaked_delta", "before_init_mem_cpu", "init_mem_cpu_alloc_delta"})
    EXPECT_TRUE(run.output.metrics.contains(k)) << k;
  EXPECT_GT(run.output.metrics["before_init_mem_cpu"].get<int64_t>(), 1 << 20);
  auto eval = run.trainer->evaluate();
  EXPECT_TRUE(eval.contains("eval_mem_cpu_alloc_delta"));
  EXPECT_FALSE(eval.contains("init_mem_cpu_alloc_delta"));  // reported once
  auto b = regression_args("memory_skip");
  b.max_steps = 2;
  EXPECT_FALSE(train_regression(b).output.metrics.contains("train_mem_cpu_alloc_delta"));
}

TEST(Flow, LabelSmoothingMatchesHFFormula) {
  at::manual_seed(0);
  auto logits = at::randn({6, 4});
  auto labels = at::tensor({0, 3, -100, 2, 1, 1}, at::kLong);
  const double eps = 0.1;
  // (1-ε)·NLL + ε·mean(-log p) over active rows
  auto lp = -at::log_softmax(logits, -1);
  auto active = labels.ne(-100);
  auto idx = active.nonzero().squeeze(1);
  auto nll = lp.index_select(0, idx).gather(1, labels.index_select(0, idx).unsqueeze(1)).mean();
  auto smooth = lp.index_select(0, idx).mean();
  const double want = ((1 - eps) * nll + eps * smooth).item<double>();
  EXPECT_NEAR(train::label_smoothed_loss(logits, labels, eps, false).item<double>(), want, 1e-6);
  // shifted (causal LM): logits at t predict labels at t+1
  auto seq_logits = at::randn({2, 5, 4});
  auto seq_labels = at::randint(0, 4, {2, 5});
  EXPECT_NEAR(train::label_smoothed_loss(seq_logits, seq_labels, eps, true).item<double>(),
              train::label_smoothed_loss(seq_logits.narrow(1, 0, 4), seq_labels.narrow(1, 1, 4), eps, false).item<double>(), 1e-6);
}

TEST(Flow, LengthGroupedSamplerPutsTheLongestFirst) {
  std::vector<int64_t> lengths(200);
  for (int i = 0; i < 200; ++i) lengths[i] = (i * 37) % 101;
  data::LengthGroupedSampler s(lengths, 8, 42);
  auto order = s.order(0);
  ASSERT_EQ(order.size(), 200u);
  EXPECT_EQ(lengths[order[0]], 100);  // the overall longest example leads
  std::vector<int64_t> sorted_order = order;
  std::sort(sorted_order.begin(), sorted_order.end());
  for (int i = 0; i < 200; ++i) EXPECT_EQ(sorted_order[i], i);  // a permutation
  // mega-batches (min(200/32, 50) = 6 batches of 8 = 48) are sorted longest first
  for (int i = 1; i < 48; ++i)
    if (i != 1) EXPECT_GE(lengths[order[i - 1]], lengths[order[i]]) << i;
  EXPECT_NE(s.order(1), order);
}

TEST(Flow, EveryOptimizerTrains) {
  for (const char* optim : {"adamw_torch", "sgd", "adafactor", "adagrad", "rmsprop"}) {
    auto a = regression_args(std::string("optim_") + optim);
    a.optim = optim;
    a.learning_rate = std::string(optim) == "sgd" ? 0.05 : 0.01;
    auto run = train_regression(a);
    EXPECT_LT(run.output.training_loss, 13.0) << optim;  // the untrained loss is ~13
  }
  auto a = regression_args("optim_args");
  a.optim = "sgd";
  a.optim_args = "momentum=0.9,nesterov=true";
  EXPECT_NO_THROW(train_regression(a));
  a.optim_args = "momentun=0.9";
  try {
    train_regression(a);
    FAIL();
  } catch (const ArgumentError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("sgd has no option 'momentun'; did you mean 'momentum'?"));
  }
  // Values torch's optimizers refuse, and values a float kernel cannot hold: one line naming
  // the key, before any step (NaN trained to NaN weights and exited 0; 1e300 was an
  // "internal error" from the kernel).
  const std::pair<const char*, const char*> bad[] = {
      {"momentum=nan", "args.optim_args.momentum: must be a finite number, got nan"},
      {"momentum=inf", "args.optim_args.momentum: must be a finite number, got inf"},
      {"momentum=-0.5", "args.optim_args.momentum: must be >= 0, got -0.5"},
      {"momentum=0.9,momentum=0.5", "args.optim_args: 'momentum' is given twice"}};
  for (const auto& [text, message] : bad) {
    a.optim_args = text;
    try {
      train_regression(a);
      ADD_FAILURE() << text << " was accepted";
    } catch (const ArgumentError& e) {
      EXPECT_THAT(e.what(), ::testing::HasSubstr(message));
    }
  }
  auto w = regression_args("optim_args_adamw");
  w.optim = "adamw_torch";
  w.optim_args = "eps=-1";
  try {
    train_regression(w);
    ADD_FAILURE() << "eps=-1 was accepted";
  } catch (const ArgumentError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("args.optim_args.eps: must be >= 0"));  // the key the user set, not adam_epsilon
  }
}

TEST(Flow, FloatArgumentsBeyondFloat32AreOneLine) {
  for (const char* key : {"learning_rate", "max_grad_norm", "adam_epsilon", "weight_decay"}) {
    TrainingArguments a;
    try {
      a.set(key, 1e300);
      a.finalize();
      ADD_FAILURE() << key;
    } catch (const ArgumentError& e) {
      EXPECT_THAT(e.what(), ::testing::HasSubstr(std::string("args.") + key + ": 1e+300 is beyond float32's range"));
    }
  }
  TrainingArguments a;
  a.weight_decay = -1;
  EXPECT_THROW(a.finalize(), ArgumentError);
}

TEST(Flow, ReduceLROnPlateauStepsAfterEvaluations) {
  auto a = regression_args("plateau");
  a.lr_scheduler_type = "reduce_lr_on_plateau";
  a.lr_scheduler_kwargs = {{"patience", 0}, {"factor", 0.5}, {"mode", "max"}};  // "max" loss never improves after the first
  a.eval_strategy = "steps";
  a.eval_steps = 4;
  a.logging_steps = 4;
  a.max_steps = 12;
  auto run = train_regression(a);
  std::vector<double> lrs;
  for (const auto& l : run.recorder->logs)
    if (l.contains("learning_rate")) lrs.push_back(l["learning_rate"]);
  ASSERT_EQ(lrs.size(), 3u);
  EXPECT_DOUBLE_EQ(lrs[0], 0.1);  // step 4: before the first evaluation
  EXPECT_DOUBLE_EQ(lrs[1], 0.1);  // first evaluation sets the best
  EXPECT_DOUBLE_EQ(lrs[2], 0.05);  // the second did not improve: halved
}

class Custom : public train::Hooks {
 public:
  std::optional<train::OptimizerSpec> create_optimizer(models::Module&, const TrainingArguments&) override {
    train::OptimizerSpec s;
    s.type = "sgd";
    s.lr = 0.2;
    s.groups.push_back({{"hidden.weight", "hidden.bias"}, "", std::nullopt, std::nullopt});  // group 0: lr 0.2, logged
    s.groups.push_back({{}, "^out\\.", 0.0, std::nullopt});  // freeze the output layer via lr 0
    return s;
  }
  std::optional<train::SchedulerSpec> create_scheduler(int64_t, const TrainingArguments&) override {
    train::SchedulerSpec s;
    s.lambda = [](int64_t step) { return step < 2 ? 1.0 : 0.5; };
    return s;
  }
  std::optional<at::Tensor> training_step(models::Module& m, const train::Batch& b, train::LossContext& ctx) override {
    // two forward/backward passes whose gradients sum to the full loss's
    at::Tensor first = m.forward_batch(b)["loss"];
    ctx.backward(first * 0.5);
    ctx.backward(m.forward_batch(b)["loss"] * 0.5);
    ++steps;
    return first.detach();
  }
  models::ModulePtr model_init() override {
    ++inits;
    return std::make_shared<RegressionModel>();
  }
  int steps = 0, inits = 0;
};

TEST(Flow, OptimizerSchedulerTrainingStepAndModelInitHooks) {
  auto hooks = std::make_shared<Custom>();
  auto a = regression_args("hooks");
  a.max_steps = 4;
  a.logging_steps = 1;
  auto run = train_regression(a, 64, 0, 0.0, hooks);
  EXPECT_EQ(hooks->inits, 1);
  EXPECT_EQ(hooks->steps, 4);
  std::vector<double> lrs;
  for (const auto& l : run.recorder->logs)
    if (l.contains("learning_rate")) lrs.push_back(l["learning_rate"]);
  EXPECT_EQ(lrs, (std::vector<double>{0.2, 0.2, 0.1, 0.1}));
  // model_init replaced the recipe's model: the trainer trained the new one
  auto& trained = run.trainer->model();
  EXPECT_NE(&trained, run.model.get());
  // the output layer's group had lr 0
  RegressionModel fresh;
  EXPECT_TRUE(trained.child("out")->parameter("weight").equal(fresh.out->parameter("weight")));
  EXPECT_FALSE(trained.child("hidden")->parameter("weight").equal(fresh.hidden->parameter("weight")));
}

TEST(Flow, PrinterOrProgressBar) {
  TrainingArguments a;
  a.disable_tqdm = true;
  EXPECT_EQ(train::CallbackHandler(a, {}).callbacks().back()->name(), "PrinterCallback");
  a.disable_tqdm = false;
  EXPECT_EQ(train::CallbackHandler(a, {}).callbacks().back()->name(), "ProgressCallback");
  EXPECT_EQ(train::CallbackHandler(a, {}).callbacks().front()->name(), "DefaultFlowCallback");
}

namespace {
// Records the fields it is called with; declares that it reads only "x".
class Picky : public RegressionModel {
 public:
  std::vector<std::string> input_names() const override { return {"x"}; }
  models::TensorMap forward_batch_impl(const models::TensorMap& b) override {
    seen.clear();
    for (const auto& [k, v] : b) seen.push_back(k);
    return RegressionModel::forward_batch_impl(b);
  }
  std::vector<std::string> seen;
};
}  // namespace

TEST(Flow, RemoveUnusedColumnsAndLabelSmoothingWithholdFields) {
  auto x = at::randn({16, 1});
  auto ds = std::make_shared<data::TensorDataset>(data::Batch{{"x", x}, {"junk", x}, {"labels", x}});
  for (bool remove : {true, false}) {
    auto a = regression_args(remove ? "remove_cols" : "keep_cols");
    a.max_steps = 1;
    a.remove_unused_columns = remove;
    a.finalize();
    auto model = std::make_shared<Picky>();
    train::Trainer t(a, model, {ds, nullptr, nullptr}, nullptr, {});
    t.train();
    EXPECT_EQ(model->seen, remove ? (std::vector<std::string>{"labels", "x"}) : (std::vector<std::string>{"junk", "labels", "x"}));
  }
  // label smoothing: the model gets no labels, the smoother computes the loss from logits
  auto cls = std::make_shared<data::TensorDataset>(data::Batch{{"x", at::randn({8, 1})}, {"labels", at::randint(0, 1, {8, 1})}});
  auto a = regression_args("smoothing");
  a.max_steps = 1;
  a.label_smoothing_factor = 0.1;
  a.finalize();
  auto model = std::make_shared<Picky>();
  train::Trainer t(a, model, {cls, nullptr, nullptr}, nullptr, {});
  t.train();
  EXPECT_EQ(model->seen, std::vector<std::string>{"x"});
}

TEST(Flow, DropLastAppliesToTraining) {
  auto a = regression_args("drop_last");
  a.dataloader_drop_last = true;
  a.per_device_train_batch_size = 10;
  a.num_train_epochs = 1;
  auto run = train_regression(a, 64, 0);
  EXPECT_EQ(run.trainer->state().max_steps, 6);  // 64 / 10, floor
}
