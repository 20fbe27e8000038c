// HF Trainer semantics of the loop: step accounting, event order, flow decisions, logged
// values and the files a run writes.
#include <c10/core/GradMode.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "runtime/core/errors.h"
#include "runtime/io/safetensors.h"
#include "runtime/models/layers.h"
#include "runtime/train/run.h"
#include "runtime/train/trainer.h"

using namespace runner;
using namespace runner::train;
namespace fs = std::filesystem;

namespace {

class MseHooks : public Hooks {
 public:
  std::optional<LossResult> compute_loss(models::Module& m, const Batch& b, LossContext&) override {
    auto pred = m.forward(b.at("x"));
    return LossResult{at::mse_loss(pred, b.at("labels")), {{"logits", pred}}};
  }
};

class Recorder : public Callback {
 public:
  std::string name() const override { return "Recorder"; }
  void on_event(Event e, const TrainingArguments&, const TrainerState& s, TrainerControl&, const nlohmann::json& payload) override {
    events.push_back(event_name(e));
    if (e == Event::kLog) logs.push_back(payload);
    if (e == Event::kStepEnd) epochs.push_back(s.epoch);
  }
  int count(const std::string& e) const { return static_cast<int>(std::count(events.begin(), events.end(), e)); }
  std::vector<std::string> events;
  std::vector<nlohmann::json> logs;
  std::vector<double> epochs;
};

struct Run {
  std::shared_ptr<Recorder> rec = std::make_shared<Recorder>();
  std::unique_ptr<Trainer> trainer;
  TrainOutput out;
};

TrainingArguments base_args(const std::string& name) {
  TrainingArguments a;
  a.output_dir = (fs::temp_directory_path() / ("runner_loop_" + std::to_string(::getpid())) / name).string();
  fs::remove_all(a.output_dir);
  a.learning_rate = 0.1;
  a.optim = "sgd";
  a.save_strategy = "no";
  a.logging_steps = 1;
  return a;
}

Run run_training(TrainingArguments a, int64_t n = 64, bool with_eval = false) {
  a.finalize();
  at::manual_seed(0);
  auto x = at::randn({n, 2});
  auto ds = std::make_shared<data::TensorDataset>(data::Batch{{"x", x}, {"labels", x.sum(1, true)}});
  Run r;
  r.trainer = std::make_unique<Trainer>(a, std::make_shared<models::Linear>(2, 1), Datasets{ds, with_eval ? ds : nullptr, nullptr},
                                        std::make_shared<MseHooks>(), std::vector<std::shared_ptr<Callback>>{r.rec});
  r.out = r.trainer->train();
  return r;
}

}  // namespace

TEST(TrainingLoop, FractionalEpochsStopPartWay) {
  auto a = base_args("frac");
  a.num_train_epochs = 1.5;
  a.per_device_train_batch_size = 8;  // 8 batches per epoch → 12 steps
  auto r = run_training(a);
  EXPECT_EQ(r.trainer->state().max_steps, 12);
  EXPECT_EQ(r.trainer->state().global_step, 12);
  EXPECT_EQ(r.trainer->state().num_train_epochs, 2);
  EXPECT_DOUBLE_EQ(r.trainer->state().epoch, 1.5);
}

TEST(TrainingLoop, MaxStepsOverridesEpochs) {
  auto a = base_args("max");
  a.max_steps = 5;
  a.per_device_train_batch_size = 32;  // 2 steps per epoch → 3 epochs
  auto r = run_training(a);
  EXPECT_EQ(r.trainer->state().global_step, 5);
  EXPECT_EQ(r.trainer->state().num_train_epochs, 3);
  EXPECT_DOUBLE_EQ(r.trainer->state().epoch, 2.5);
}

TEST(TrainingLoop, PartialWindowStillStepsAndCountsMicroBatches) {
  auto a = base_args("window");
  a.num_train_epochs = 1;
  a.per_device_train_batch_size = 8;
  a.gradient_accumulation_steps = 3;  // 8 micro-batches: windows 3, 3, 2
  auto r = run_training(a);
  EXPECT_EQ(r.trainer->state().global_step, 3);
  EXPECT_EQ(r.rec->count("on_step_begin"), 3);
  EXPECT_EQ(r.rec->count("on_substep_end"), 5);  // 2 + 2 + 1
  EXPECT_EQ(r.rec->count("on_step_end"), 3);
  EXPECT_EQ(r.rec->epochs, (std::vector<double>{3.0 / 8, 6.0 / 8, 1.0}));
}

TEST(TrainingLoop, EventOrderOfOneStep) {
  auto a = base_args("order");
  a.max_steps = 1;
  a.per_device_train_batch_size = 64;
  auto r = run_training(a);
  const std::vector<std::string> want{"on_init_end", "on_train_begin", "on_epoch_begin", "on_step_begin", "on_pre_optimizer_step",
                                      "on_optimizer_step", "on_step_end", "on_log", "on_epoch_end", "on_log", "on_train_end"};
  EXPECT_EQ(r.rec->events, want);
}

TEST(TrainingLoop, LoggedValuesFollowHF) {
  auto a = base_args("logs");
  a.max_steps = 4;
  a.per_device_train_batch_size = 16;
  a.logging_steps = 2;
  a.lr_scheduler_type = "linear";
  a.warmup_steps = 2;
  auto r = run_training(a);
  ASSERT_EQ(r.rec->logs.size(), 3u);  // steps 2, 4, then the train summary
  const auto& first = r.rec->logs[0];
  EXPECT_DOUBLE_EQ(first["learning_rate"].get<double>(), 0.05);  // the lr used by step 2: warmup 1/2
  EXPECT_DOUBLE_EQ(r.rec->logs[1]["learning_rate"].get<double>(), 0.1 * 1 / 2);  // step 4 uses λ(3) = (4-3)/2
  EXPECT_TRUE(first.contains("grad_norm"));
  EXPECT_DOUBLE_EQ(first["epoch"].get<double>(), 0.5);
  // HF v5 logs the loss unrounded (v4 rounded it to 4 decimals): the mean of the two steps.
  const double loss = first["loss"].get<double>();
  EXPECT_NE(loss, std::round(loss * 1e4) / 1e4);
  const auto& summary = r.rec->logs[2];
  for (const char* k : {"train_runtime", "train_samples_per_second", "train_steps_per_second", "total_flos", "train_loss", "epoch"})
    EXPECT_TRUE(summary.contains(k)) << k;
  const auto& history = r.trainer->state().log_history;
  EXPECT_EQ(history[0]["step"], 2);
  EXPECT_EQ(history[1]["step"], 4);
  // train_loss is the mean over all steps of the per-step losses
  const double mean = (history[0]["loss"].get<double>() + history[1]["loss"].get<double>()) / 2;
  EXPECT_NEAR(summary["train_loss"].get<double>(), mean, 1e-4);
}

TEST(TrainingLoop, GradNormIsLoggedAlsoWithoutClipping) {
  // HF v5 computes and logs the norm whether or not it clips.
  auto a = base_args("noclip");
  a.max_steps = 1;
  a.max_grad_norm = 0;
  auto r = run_training(a);
  ASSERT_TRUE(r.rec->logs[0].contains("grad_norm"));
  EXPECT_GT(r.rec->logs[0]["grad_norm"].get<double>(), 0.0);
}

TEST(TrainingLoop, EvaluationLossIsSampleWeighted) {
  auto a = base_args("eval");
  a.max_steps = 1;
  a.per_device_eval_batch_size = 10;  // 64 = 6 × 10 + 4: the partial batch counts by its size
  auto r = run_training(a, 64, true);
  auto metrics = r.trainer->evaluate();
  at::manual_seed(0);
  auto x = at::randn({64, 2});
  auto& model = r.trainer->model();
  c10::NoGradGuard ng;
  const double exact = at::mse_loss(model.forward(x), x.sum(1, true)).item<double>();
  EXPECT_NEAR(metrics["eval_loss"].get<double>(), exact, 1e-6);
  for (const char* k : {"eval_runtime", "eval_samples_per_second", "eval_steps_per_second", "epoch"}) EXPECT_TRUE(metrics.contains(k));
}

TEST(TrainingLoop, FinalEvaluationAndSaveOnStepsStrategy) {
  auto a = base_args("final");
  a.max_steps = 5;
  a.per_device_train_batch_size = 16;
  a.eval_strategy = "steps";
  a.eval_steps = 2;
  a.save_strategy = "steps";
  a.save_steps = 2;
  auto r = run_training(a, 64, true);
  EXPECT_EQ(r.rec->count("on_evaluate"), 3);  // steps 2, 4 and (v5) the last step 5
  EXPECT_EQ(r.rec->count("on_save"), 3);
  for (int step : {2, 4, 5}) {
    const auto dir = fs::path(a.output_dir) / ("checkpoint-" + std::to_string(step));
    for (const char* f : {"model.safetensors", "optimizer.json", "scheduler.json", "rng_state.json", "trainer_state.json", "training_args.json"})
      EXPECT_TRUE(fs::exists(dir / f)) << dir / f;
  }
}

TEST(TrainingLoop, RunPhasesWriteTheOutputContract) {
  auto a = base_args("phases");
  a.max_steps = 2;
  a.finalize();
  at::manual_seed(0);
  auto x = at::randn({16, 2});
  auto ds = std::make_shared<data::TensorDataset>(data::Batch{{"x", x}, {"labels", x.sum(1, true)}});
  auto model = std::make_shared<models::Linear>(2, 1);
  Trainer t(a, model, {ds, ds, nullptr}, std::make_shared<MseHooks>(), {});
  run_phases(t, resolve_phases(a, {ds, ds, nullptr}));
  for (const char* f : {"model.safetensors", "trainer_state.json", "training_args.json", "train_results.json", "eval_results.json", "all_results.json"})
    EXPECT_TRUE(fs::exists(fs::path(a.output_dir) / f)) << f;
  auto saved = io::load_safetensors(a.output_dir + "/model.safetensors");
  EXPECT_EQ(saved[0].first, "weight");
  EXPECT_TRUE(saved[0].second.equal(model->weight.detach()));
}

TEST(TrainingLoop, ModelWithoutLossExplainsWhatToDo) {
  auto a = base_args("noloss");
  a.max_steps = 1;
  a.finalize();
  auto x = at::randn({4, 2});
  auto ds = std::make_shared<data::TensorDataset>(data::Batch{{"x", x}, {"labels", x}});
  Trainer t(a, std::make_shared<models::Linear>(2, 2), {ds, nullptr, nullptr}, nullptr, {});
  try {
    t.train();
    FAIL();
  } catch (const RecipeError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("the model did not return a loss, only: logits"));
  }
}
