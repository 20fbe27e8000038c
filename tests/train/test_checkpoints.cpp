// Acceptance #3.3 and the best-model rules: rotation with save_total_limit keeps exactly
// the folders HF keeps; best_metric / best_global_step / best_model_checkpoint follow
// HF's _determine_best_metric and _save_checkpoint; load_best_model_at_end restores them.
#include <gmock/gmock.h>

#include "runtime/io/safetensors.h"
#include "runtime/train/builtin_callbacks.h"
#include "tests/train/train_fixture.h"

using namespace runner;
using namespace runner::testing;

namespace {

std::vector<std::pair<int64_t, std::string>> fake(const std::string& dir) {
  std::vector<std::pair<int64_t, std::string>> out;
  for (int step = 5; step <= 25; step += 5) out.emplace_back(step, dir + "/checkpoint-" + std::to_string(step));
  return out;
}
std::vector<std::string> kept(const std::string& dir, const std::optional<std::string>& best, int64_t limit,
                              const std::optional<std::string>& written = std::nullopt) {
  const auto all = fake(dir);
  const auto gone = io::checkpoints_to_delete(all, best, limit, written);
  std::vector<std::string> out;
  for (const auto& [step, path] : all)
    if (std::find(gone.begin(), gone.end(), path) == gone.end()) out.push_back(std::to_string(step));
  return out;
}

// Evaluates a fixed score sequence instead of a real metric.
class ScriptedMetric : public train::Hooks {
 public:
  explicit ScriptedMetric(std::vector<double> scores) : scores_(std::move(scores)) {}
  bool has_compute_metrics() const override { return true; }
  nlohmann::json compute_metrics(const train::EvalPrediction&, bool) override {
    const double s = scores_.at(std::min(n_, scores_.size() - 1));
    ++n_;
    return {{"score", s}};
  }

 private:
  std::vector<double> scores_;
  size_t n_ = 0;
};

}  // namespace

TEST(Rotation, HuggingFaceCases) {
  const std::string d = "/out";
  EXPECT_EQ(kept(d, std::nullopt, 2), (std::vector<std::string>{"20", "25"}));
  EXPECT_EQ(kept(d, d + "/checkpoint-5", 2), (std::vector<std::string>{"5", "25"}));
  EXPECT_EQ(kept(d, d + "/checkpoint-25", 1), (std::vector<std::string>{"25"}));
  EXPECT_EQ(kept(d, d + "/checkpoint-5", 1), (std::vector<std::string>{"5", "25"}));
  EXPECT_EQ(kept(d, d + "/checkpoint-15", 3), (std::vector<std::string>{"15", "20", "25"}));
  EXPECT_EQ(kept(d, d + "/checkpoint-10", 3), (std::vector<std::string>{"10", "20", "25"}));
  EXPECT_EQ(kept(d, std::nullopt, 0), (std::vector<std::string>{"5", "10", "15", "20", "25"}));  // no limit
}

// A folder with an earlier run's higher-numbered checkpoints: the one just written is the
// newest, whatever its step (sorting by step alone deleted it at once).
TEST(Rotation, TheCheckpointJustWrittenIsNeverDeleted) {
  const std::string d = "/out";
  EXPECT_EQ(kept(d, std::nullopt, 1, d + "/checkpoint-10"), (std::vector<std::string>{"10"}));
  EXPECT_EQ(kept(d, d + "/checkpoint-5", 2, d + "/checkpoint-10"), (std::vector<std::string>{"5", "10"}));
  EXPECT_EQ(kept(d, std::nullopt, 2, d + "/checkpoint-25"), (std::vector<std::string>{"20", "25"}));
}

TEST(Rotation, DuringTrainingWithoutBest) {
  auto a = regression_args("rotate2");
  a.save_strategy = "steps";
  a.save_steps = 5;
  a.save_total_limit = 2;
  train_regression(a);  // 24 steps: saves 5, 10, 15, 20, 24
  EXPECT_EQ(checkpoint_steps(a.output_dir), (std::vector<int64_t>{20, 24}));
}

TEST(Rotation, LimitOneKeepsBestAndLatestThenOnlyBest) {
  auto a = regression_args("rotate1best");
  a.save_strategy = a.eval_strategy = "steps";
  a.save_steps = 6;
  a.eval_steps = 6;
  a.save_total_limit = 1;
  a.metric_for_best_model = "score";
  a.greater_is_better = true;
  // best at the second evaluation (step 12), worse afterwards
  auto hooks = std::make_shared<ScriptedMetric>(std::vector<double>{0.5, 0.9, 0.1, 0.2});
  auto run = train_regression(a, 64, 16, 0.0, hooks);
  EXPECT_EQ(run.trainer->state().best_global_step, 12);
  EXPECT_EQ(run.trainer->state().best_model_checkpoint, a.output_dir + "/checkpoint-12");
  // at the end of training only the best checkpoint remains (HF)
  EXPECT_EQ(checkpoint_steps(a.output_dir), (std::vector<int64_t>{12}));
}

// A run resumed in another folder (moved machines) whose recorded best checkpoint is gone:
// HF forgets the best with a warning; runner deleted every checkpoint, the newest included,
// since none was "the best".
TEST(Rotation, ResumeWhoseBestCheckpointIsGoneKeepsTheNewest) {
  auto a = regression_args("rotate_moved");
  a.max_steps = 8;
  a.save_strategy = a.eval_strategy = "steps";
  a.save_steps = 2;
  a.eval_steps = 2;
  a.save_total_limit = 3;
  a.metric_for_best_model = "score";
  auto hooks = std::make_shared<ScriptedMetric>(std::vector<double>{0.9, 0.1, 0.2, 0.3});  // best at step 2
  train_regression(a, 64, 16, 0.0, hooks);
  auto b = regression_args("rotate_moved_2");
  fs::create_directories(b.output_dir);
  fs::copy(a.output_dir + "/checkpoint-6", b.output_dir + "/checkpoint-6", fs::copy_options::recursive);
  fs::remove_all(a.output_dir);
  b.max_steps = 8;
  b.save_strategy = b.eval_strategy = "steps";
  b.save_steps = 2;
  b.eval_steps = 2;
  b.save_total_limit = 1;
  b.metric_for_best_model = "score";
  b.resume_from_checkpoint = b.output_dir + "/checkpoint-6";
  auto run = train_regression(b, 64, 16, 0.0, std::make_shared<ScriptedMetric>(std::vector<double>{0.1}));
  EXPECT_EQ(checkpoint_steps(b.output_dir), (std::vector<int64_t>{8}));
  EXPECT_FALSE(run.trainer->state().best_model_checkpoint.has_value());
}

TEST(BestModel, CheckpointOnlyWhenEvalAndSaveCoincide) {
  // HF test_best_model_checkpoint_behavior: eval every 3, save every 2 → the best step is
  // never saved, so best_model_checkpoint stays unset.
  auto a = regression_args("best_none");
  a.max_steps = 6;
  a.eval_strategy = a.save_strategy = "steps";
  a.eval_steps = 3;
  a.save_steps = 2;
  a.metric_for_best_model = "loss";
  auto run = train_regression(a);
  EXPECT_TRUE(run.trainer->state().best_metric.has_value());
  EXPECT_EQ(run.trainer->state().best_global_step, 6);  // step 6 is both evaluated and saved
  ASSERT_TRUE(run.trainer->state().best_model_checkpoint.has_value());
  EXPECT_EQ(*run.trainer->state().best_model_checkpoint, a.output_dir + "/checkpoint-6");

  auto b = regression_args("best_none_3");
  b.max_steps = 5;
  b.eval_strategy = b.save_strategy = "steps";
  b.eval_steps = 3;
  b.save_steps = 2;
  b.metric_for_best_model = "score";
  auto hooks = std::make_shared<ScriptedMetric>(std::vector<double>{0.9, 0.1});  // best at step 3, never saved
  auto run_b = train_regression(b, 64, 16, 0.0, hooks);
  EXPECT_EQ(run_b.trainer->state().best_global_step, 3);
  EXPECT_FALSE(run_b.trainer->state().best_model_checkpoint.has_value());
}

TEST(BestModel, LoadBestModelAtEndRestoresTheBestWeights) {
  auto a = regression_args("best_load");
  a.eval_strategy = a.save_strategy = "steps";
  a.eval_steps = a.save_steps = 8;  // evaluations at 8, 16, 24
  a.load_best_model_at_end = true;
  a.metric_for_best_model = "score";
  auto hooks = std::make_shared<ScriptedMetric>(std::vector<double>{0.2, 0.8, 0.5});
  auto run = train_regression(a, 64, 16, 0.0, hooks);
  EXPECT_EQ(run.trainer->state().best_model_checkpoint, a.output_dir + "/checkpoint-16");
  const auto best = io::load_safetensors(a.output_dir + "/checkpoint-16/model.safetensors");
  for (const auto& [name, t] : best) {
    bool found = false;
    for (const auto& [n2, mine] : run.model->state_dict())
      if (n2 == name) {
        found = true;
        EXPECT_TRUE(mine.equal(t)) << name;
      }
    EXPECT_TRUE(found) << name;
  }
}

TEST(BestModel, SaveStrategyBestSavesOnlyImprovements) {
  auto a = regression_args("best_strategy");
  a.eval_strategy = "steps";
  a.eval_steps = 4;  // 6 evaluations
  a.save_strategy = "best";
  a.metric_for_best_model = "score";
  auto hooks = std::make_shared<ScriptedMetric>(std::vector<double>{0.1, 0.3, 0.2, 0.6, 0.6, 0.4});
  auto run = train_regression(a, 64, 16, 0.0, hooks);
  EXPECT_EQ(run.recorder->saves, (std::vector<int64_t>{4, 8, 16}));  // equal is not better
  EXPECT_EQ(checkpoint_steps(a.output_dir), (std::vector<int64_t>{4, 8, 16}));
  EXPECT_EQ(run.trainer->state().best_model_checkpoint, a.output_dir + "/checkpoint-16");
}

TEST(BestModel, MissingMetricNamesTheAvailableOnes) {
  auto a = regression_args("best_missing");
  a.eval_strategy = "steps";
  a.eval_steps = 4;
  a.metric_for_best_model = "accuracy";
  try {
    train_regression(a);
    FAIL();
  } catch (const ArgumentError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("\"accuracy\" is not among the evaluation metrics (eval_loss, eval_runtime"));
  }
}

TEST(BestModel, EarlyStoppingStopsAfterPatienceAndSavesItsCounter) {
  auto a = regression_args("early");
  a.eval_strategy = a.save_strategy = "steps";
  a.eval_steps = a.save_steps = 2;
  a.metric_for_best_model = "score";
  a.load_best_model_at_end = true;
  auto hooks = std::make_shared<ScriptedMetric>(std::vector<double>{0.5, 0.6, 0.6, 0.55, 0.4, 0.9});
  auto run = train_regression(a, 64, 16, 0.0, hooks, {train::make_early_stopping_callback(3)});
  // improvements at evals 1, 2; no improvement at 3, 4, 5 → stop after the 5th eval (step 10)
  EXPECT_EQ(run.trainer->state().global_step, 10);
  const auto state = io::read_json_file(a.output_dir + "/checkpoint-10/trainer_state.json");
  EXPECT_EQ(state["stateful_callbacks"]["EarlyStoppingCallback"]["attributes"]["early_stopping_patience_counter"], 3);
  EXPECT_EQ(state["stateful_callbacks"]["EarlyStoppingCallback"]["args"]["early_stopping_patience"], 3);
  EXPECT_EQ(state["stateful_callbacks"]["TrainerControl"]["args"]["should_training_stop"], true);
}

TEST(BestModel, EarlyStoppingCounterIsRestoredOnlyWhenAsked) {
  auto a = regression_args("early_restore_src");
  a.eval_strategy = a.save_strategy = "steps";
  a.eval_steps = a.save_steps = 2;
  a.metric_for_best_model = "score";
  a.max_steps = 6;
  auto hooks = std::make_shared<ScriptedMetric>(std::vector<double>{0.5, 0.4, 0.3});
  train_regression(a, 64, 16, 0.0, hooks, {train::make_early_stopping_callback(10)});
  // counter is 2 in checkpoint-6; resuming with patience 3 and one more bad eval stops at once
  for (bool restore : {false, true}) {
    auto b = regression_args(restore ? "early_restore_yes" : "early_restore_no");
    b.eval_strategy = b.save_strategy = "steps";
    b.eval_steps = b.save_steps = 2;
    b.metric_for_best_model = "score";
    b.max_steps = 20;
    b.resume_from_checkpoint = a.output_dir + "/checkpoint-6";
    b.restore_callback_states_from_checkpoint = restore;
    auto more = std::make_shared<ScriptedMetric>(std::vector<double>{0.1, 0.1, 0.1, 0.1});
    auto run = train_regression(b, 64, 16, 0.0, more, {train::make_early_stopping_callback(3)});
    EXPECT_EQ(run.trainer->state().global_step, restore ? 8 : 12) << "restore=" << restore;
  }
}
