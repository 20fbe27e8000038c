// Acceptance #3.4: the event sequence of a 3-epoch run equals what HF's test_event_flow
// expects, for its configurations (defaults; logging, saving, evaluating every 5 steps;
// evaluating every epoch; and a bit of everything). The expected sequence is generated
// from HF's rules, including v5's evaluation at the last step.
#include "tests/train/train_fixture.h"

using namespace runner;
using namespace runner::testing;

namespace {

std::vector<std::string> expected_events(const TrainingArguments& a, int64_t steps_per_epoch, int64_t eval_batches, int64_t epochs) {
  std::vector<std::string> e{"on_init_end", "on_train_begin"};
  std::vector<std::string> evaluation(static_cast<size_t>(eval_batches), "on_prediction_step");
  evaluation.insert(evaluation.end(), {"on_log", "on_evaluate"});
  const int64_t max_steps = steps_per_epoch * epochs;
  const int64_t log_every = static_cast<int64_t>(a.logging_steps), save_every = static_cast<int64_t>(a.save_steps);
  const int64_t eval_every = static_cast<int64_t>(a.eval_steps.value_or(a.logging_steps));
  int64_t step = 0;
  for (int64_t epoch = 0; epoch < epochs; ++epoch) {
    e.push_back("on_epoch_begin");
    for (int64_t i = 0; i < steps_per_epoch; ++i) {
      ++step;
      e.insert(e.end(), {"on_step_begin", "on_pre_optimizer_step", "on_optimizer_step", "on_step_end"});
      if (step % log_every == 0) e.push_back("on_log");
      if (a.eval_strategy == "steps" && (step % eval_every == 0 || step == max_steps)) e.insert(e.end(), evaluation.begin(), evaluation.end());
      if (a.save_strategy == "steps" && (step % save_every == 0 || step == max_steps)) e.push_back("on_save");
    }
    e.push_back("on_epoch_end");
    if (a.eval_strategy == "epoch") e.insert(e.end(), evaluation.begin(), evaluation.end());
  }
  e.insert(e.end(), {"on_log", "on_train_end"});
  return e;
}

void check_flow(TrainingArguments a, const std::string& name) {
  a.output_dir = temp_output(name);
  a.save_strategy = "steps";  // HF default
  auto run = train_regression(a);
  TrainingArguments resolved = a;
  resolved.finalize();
  EXPECT_EQ(run.recorder->events, expected_events(resolved, 8, 8, 3)) << name;
}

}  // namespace

TEST(EventFlow, Defaults) { check_flow(regression_args("flow_defaults"), "defaults"); }

TEST(EventFlow, LoggingEvery5) {
  auto a = regression_args("flow_log");
  a.logging_steps = 5;
  check_flow(a, "logging_steps=5");
}

TEST(EventFlow, SavingEvery5) {
  auto a = regression_args("flow_save");
  a.save_steps = 5;
  check_flow(a, "save_steps=5");
}

TEST(EventFlow, EvaluatingEvery5Steps) {
  auto a = regression_args("flow_eval_steps");
  a.eval_steps = 5;
  a.eval_strategy = "steps";
  check_flow(a, "eval_steps=5");
}

TEST(EventFlow, EvaluatingEveryEpoch) {
  auto a = regression_args("flow_eval_epoch");
  a.eval_strategy = "epoch";
  check_flow(a, "eval_strategy=epoch");
}

TEST(EventFlow, ABitOfEverything) {
  auto a = regression_args("flow_all");
  a.logging_steps = 3;
  a.save_steps = 10;
  a.eval_steps = 5;
  a.eval_strategy = "steps";
  check_flow(a, "everything");
}

TEST(EventFlow, CallbacksChangingControlAreHonoured) {
  // A user callback sees DefaultFlow's decision and can override it (HF order).
  class StopAt7 : public Callback {
   public:
    std::string name() const override { return "StopAt7"; }
    void on_event(Event e, const TrainingArguments&, const TrainerState& s, TrainerControl& c, const nlohmann::json&) override {
      if (e == Event::kStepEnd && s.global_step == 7) c.should_training_stop = true;
    }
  };
  auto a = regression_args("flow_stop");
  auto run = train_regression(a, 64, 0, 0.0, nullptr, {std::make_shared<StopAt7>()});
  EXPECT_EQ(run.trainer->state().global_step, 7);
  EXPECT_EQ(run.recorder->count("on_epoch_end"), 1);  // the epoch still ends properly
}
