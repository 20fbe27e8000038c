#include "runtime/train/builtin_callbacks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "runtime/core/errors.h"
#include "runtime/log/log.h"

namespace runner::train {

using nlohmann::json;

namespace {

class DefaultFlow : public Callback {
 public:
  std::string name() const override { return "DefaultFlowCallback"; }
  void on_event(Event e, const TrainingArguments& args, const TrainerState& state, TrainerControl& control, const json&) override {
    const int64_t step = state.global_step;
    if (e == Event::kStepEnd) {
      if (step == 1 && args.logging_first_step) control.should_log = true;
      if (args.logging_strategy == "steps" && state.logging_steps > 0 && step % state.logging_steps == 0) control.should_log = true;
      const bool eval_now = args.eval_strategy == "steps" && state.eval_steps > 0 && step % state.eval_steps == 0 &&
                            args.eval_delay <= static_cast<double>(step);
      if (eval_now) control.should_evaluate = true;
      if (args.save_strategy == "steps" && state.save_steps > 0 && step % state.save_steps == 0) control.should_save = true;
      if (step >= state.max_steps) {
        control.should_training_stop = true;
        // v5: the last step always gets an evaluation (steps strategy) and a save.
        if (args.eval_strategy == "steps" && !eval_now && args.eval_delay <= static_cast<double>(step)) control.should_evaluate = true;
        if (args.save_strategy == "steps") control.should_save = true;
      }
    } else if (e == Event::kEpochEnd) {
      if (args.logging_strategy == "epoch") control.should_log = true;
      if (args.eval_strategy == "epoch" && args.eval_delay <= state.epoch) control.should_evaluate = true;
      if (args.save_strategy == "epoch") control.should_save = true;
    }
  }
};

class EarlyStopping : public Callback {
 public:
  EarlyStopping(int64_t patience, double threshold) : patience_(patience), threshold_(threshold) {}
  std::string name() const override { return "EarlyStoppingCallback"; }
  void on_event(Event e, const TrainingArguments& args, const TrainerState& state, TrainerControl& control, const json& metrics) override {
    if (e == Event::kTrainBegin) {
      if (!args.load_best_model_at_end)
        log::warn("Using EarlyStoppingCallback without load_best_model_at_end=true. Once training is finished, the best model will not be loaded automatically.");
      if (!args.metric_for_best_model) throw ArgumentError("args.metric_for_best_model: EarlyStoppingCallback requires metric_for_best_model to be defined");
      if (args.eval_strategy == "no") throw ArgumentError("args.eval_strategy: EarlyStoppingCallback requires an eval strategy of steps or epoch");
      return;
    }
    if (e != Event::kEvaluate) return;
    std::string key = *args.metric_for_best_model;
    if (key.rfind("eval_", 0) != 0) key = "eval_" + key;
    if (!metrics.contains(key) || !metrics[key].is_number()) {
      log::warn("early stopping required metric_for_best_model, but did not find " + key + " so early stopping is disabled");
      return;
    }
    // Runs before the Trainer updates best_metric, so it compares with the previous best.
    const double v = metrics[key].get<double>();
    const bool greater = args.greater_is_better.value_or(true);
    const bool better = !state.best_metric || ((greater ? v > *state.best_metric : v < *state.best_metric) &&
                                               std::fabs(v - *state.best_metric) > threshold_);
    counter_ = better ? 0 : counter_ + 1;
    if (counter_ >= patience_) control.should_training_stop = true;
  }
  json state() const override {
    return {{"args", {{"early_stopping_patience", patience_}, {"early_stopping_threshold", threshold_}}},
            {"attributes", {{"early_stopping_patience_counter", counter_}}}};
  }
  void load_state(const json& s) override {
    const json attrs = s.value("attributes", json::object());
    counter_ = attrs.value("early_stopping_patience_counter", counter_);
  }

 private:
  int64_t patience_;
  double threshold_;
  int64_t counter_ = 0;
};

}  // namespace

std::shared_ptr<Callback> make_default_flow_callback() { return std::make_shared<DefaultFlow>(); }
std::shared_ptr<Callback> make_early_stopping_callback(int64_t patience, double threshold) {
  if (patience < 1) throw ArgumentError("callbacks.early_stopping: patience must be >= 1");
  return std::make_shared<EarlyStopping>(patience, threshold);
}

}  // namespace runner::train
