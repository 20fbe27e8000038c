// ReduceLROnPlateau: scripted metric sequences with multipliers worked out by hand from
// torch.optim.lr_scheduler.ReduceLROnPlateau's rules, plus checkpoint state.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/core/errors.h"
#include "runtime/optim/scheduler.h"

using namespace runner;
using namespace runner::optim;
using nlohmann::json;

namespace {

// Feeds the metrics; after each one the multiplier must equal `want[i]`. Scheduler steps in
// between (as the training loop takes them) must not move it.
void expect_multipliers(PlateauScheduler& s, const std::vector<double>& metrics, const std::vector<double>& want, size_t first = 0) {
  ASSERT_EQ(metrics.size(), want.size());
  for (size_t i = first; i < metrics.size(); ++i) {
    s.on_metric(metrics[i]);
    EXPECT_DOUBLE_EQ(s.current_factor(), want[i]) << "metric #" << i + 1;
    for (int k = 0; k < 3; ++k) s.step();
    EXPECT_DOUBLE_EQ(s.current_factor(), want[i]) << "after steps, metric #" << i + 1;
    EXPECT_DOUBLE_EQ(s.factor(0), want[i]);
  }
}

// mode min, rel threshold 1e-4, patience 2, cooldown 1, factor 0.5, min_lr 0.4 with base lr 2
// (so the floor is a multiplier of 0.2, not 0.4).
const json kMinKwargs{{"patience", 2}, {"cooldown", 1}, {"factor", 0.5}, {"min_lr", 0.4}};
const std::vector<double> kMinMetrics{10, 9, 9, 8.9995, 9.5, 9.5, 9.5, 9.5, 9.5, 9.5, 9.5, 9.5, 9.5, 9.5, 9.5, 9.5, 9.5, 8};
// #3, #4 bad (8.9995 is not below 9·(1 − 1e-4)); #5 third bad → ×0.5, cooldown 1.
// #6 bad but in cooldown (reset); #7-#9 bad → ×0.5 at #9; #10 cooldown; #11-#13 → 0.25·0.5
// clamps at min_lr 0.4 → 0.2; #14 cooldown; #17 would go below min_lr → unchanged; #18 new best.
const std::vector<double> kMinWant{1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.25, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2};

}  // namespace

TEST(Plateau, PatienceCooldownMinLr) {
  auto s = make_plateau_scheduler(kMinKwargs, 2.0);
  EXPECT_DOUBLE_EQ(s->current_factor(), 1.0);
  expect_multipliers(*s, kMinMetrics, kMinWant);
  EXPECT_DOUBLE_EQ(s->best(), 8);
  EXPECT_EQ(s->num_bad_epochs(), 0);
  EXPECT_EQ(s->cooldown_counter(), 0);
  EXPECT_EQ(s->last_epoch(), 18);
}

TEST(Plateau, ModeMaxAbsThreshold) {
  auto s = make_plateau_scheduler({{"mode", "max"}, {"threshold_mode", "abs"}, {"threshold", 0.5}, {"patience", 1}}, 2.0);
  // #2 1.4 ≤ 1 + 0.5: bad; #3 1.6 better; #4 2.0 ≤ 2.1 bad; #5 bad → ×0.1; #6 3.0 better;
  // #7 3.6 > 3.5 better (rel would need > 4.5); #8, #9 bad → ×0.1.
  expect_multipliers(*s, {1.0, 1.4, 1.6, 2.0, 1.0, 3.0, 3.6, 3.6, 3.6}, {1, 1, 1, 1, 0.1, 0.1, 0.1, 0.1, 0.01});
}

TEST(Plateau, ModeMinAbsThreshold) {
  auto s = make_plateau_scheduler({{"threshold_mode", "abs"}, {"threshold", 0.5}, {"patience", 0}}, 1.0);
  // #2 9.6 ≥ 10 − 0.5: bad → ×0.1; #3 9.4 < 9.5 better (rel would need < 5); #4 9.0 ≥ 8.9 bad.
  expect_multipliers(*s, {10, 9.6, 9.4, 9.0}, {1, 0.1, 0.1, 0.01});
}

TEST(Plateau, Defaults) {
  // patience 10, factor 0.1, rel threshold 1e-4: 0.99995 is no improvement on 1.
  auto s = make_plateau_scheduler(json::object(), 1.0);
  std::vector<double> metrics{1.0}, want{1.0};
  for (int i = 0; i < 11; ++i) {
    metrics.push_back(0.99995);
    want.push_back(i < 10 ? 1.0 : 0.1);
  }
  expect_multipliers(*s, metrics, want);
}

TEST(Plateau, EpsSkipsTinyReductions) {
  // lr 1e-8 → 1e-9 is a change of 9e-9 < eps = 1e-8: torch keeps the lr.
  auto s = make_plateau_scheduler({{"patience", 0}}, 1e-8);
  expect_multipliers(*s, {1.0, 1.0, 1.0}, {1, 1, 1});
  auto t = make_plateau_scheduler({{"patience", 0}, {"eps", 0.0}}, 1e-8);
  t->on_metric(1.0);
  t->on_metric(1.0);
  EXPECT_NEAR(t->current_factor(), 0.1, 1e-12);
}

TEST(Plateau, StateRoundTrip) {
  auto s = make_plateau_scheduler(kMinKwargs, 2.0);
  // Before any metric the best is +inf, which JSON cannot hold as a number.
  EXPECT_EQ(s->state()["best"], "inf");
  auto restored = make_plateau_scheduler(kMinKwargs, 2.0);
  restored->load_state(json::parse(s->state().dump()));
  EXPECT_EQ(restored->best(), std::numeric_limits<double>::infinity());

  const size_t half = 9;
  expect_multipliers(*s, std::vector<double>(kMinMetrics.begin(), kMinMetrics.begin() + half),
                     std::vector<double>(kMinWant.begin(), kMinWant.begin() + half));
  const json saved = json::parse(s->state().dump());
  EXPECT_EQ(saved["steps_taken"], 27);
  EXPECT_EQ(saved["cooldown_counter"], 1);
  EXPECT_EQ(saved["last_epoch"], 9);
  auto resumed = make_plateau_scheduler(kMinKwargs, 2.0);
  resumed->load_state(saved);
  EXPECT_EQ(resumed->steps_taken(), 27);
  expect_multipliers(*resumed, kMinMetrics, kMinWant, half);

  json bad = saved;
  bad.erase("num_bad_epochs");
  EXPECT_THROW(resumed->load_state(bad), CheckpointError);
  EXPECT_THROW(resumed->load_state(json::array()), CheckpointError);
}

TEST(Plateau, ReachableFromMakeSchedulerIgnoringWarmup) {
  auto s = make_scheduler("reduce_lr_on_plateau", 5, 100, {{"patience", 0}}, 1.0);
  auto* p = dynamic_cast<PlateauScheduler*>(s.get());
  ASSERT_NE(p, nullptr);
  EXPECT_DOUBLE_EQ(s->current_factor(), 1.0);  // no warmup ramp
  p->on_metric(1.0);
  p->on_metric(2.0);
  EXPECT_DOUBLE_EQ(s->current_factor(), 0.1);
}

TEST(Plateau, BadKwargsNameTheKey) {
  try {
    make_plateau_scheduler({{"patiance", 3}}, 1.0);
    FAIL();
  } catch (const ArgumentError& e) {
    EXPECT_THAT(e.what(),
                ::testing::HasSubstr("args.lr_scheduler_kwargs.patiance: not an option of reduce_lr_on_plateau; did you mean 'patience'?"));
  }
  for (const json& kw : {json{{"factor", 1.0}}, json{{"mode", "mid"}}, json{{"threshold_mode", "relative"}}, json{{"patience", 2.5}},
                         json{{"patience", -1}}, json{{"cooldown", "2"}}, json{{"min_lr", {0.1}}}, json{{"verbose", 1}}})
    EXPECT_THROW(make_scheduler("reduce_lr_on_plateau", 0, 10, kw, 1.0), ArgumentError) << kw.dump();
  EXPECT_NO_THROW(make_plateau_scheduler({{"verbose", true}, {"patience", 3.0}}, 1.0));
}

TEST(SchedulerState, DefaultSavesTheStepCount) {
  auto s = make_scheduler("linear", 2, 10, json::object(), 1.0);
  for (int i = 0; i < 3; ++i) s->step();
  const json saved = s->state();
  EXPECT_EQ(saved, (json{{"steps_taken", 3}}));
  auto fresh = make_scheduler("linear", 2, 10, json::object(), 1.0);
  fresh->load_state(saved);
  EXPECT_EQ(fresh->steps_taken(), 3);
  EXPECT_DOUBLE_EQ(fresh->current_factor(), s->current_factor());
  EXPECT_THROW(fresh->load_state(json::object()), CheckpointError);
}
