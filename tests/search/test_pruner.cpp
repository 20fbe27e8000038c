#include <gtest/gtest.h>

#include <cmath>

#include "runtime/search/pruner.h"

using namespace runner::search;

namespace {

Trial finished(int number, std::map<int64_t, double> intermediate, Trial::State state = Trial::State::kComplete) {
  Trial t;
  t.number = number;
  t.state = state;
  t.intermediate = std::move(intermediate);
  return t;
}

// Five finished trials whose values at step 3 have median 3 (and at step 1, median 30).
std::vector<Trial> five() {
  std::vector<Trial> h;
  for (int i = 0; i < 5; ++i) h.push_back(finished(i, {{1, 10.0 * (i + 1)}, {3, i + 1.0}}));
  return h;
}

Trial running(double at3) {
  Trial t;
  t.number = 99;
  t.intermediate = {{3, at3}};
  return t;
}

}  // namespace

TEST(SearchMedianPruner, ComparesWithTheMedianInTheObjectivesDirection) {
  MedianPruner p;
  auto h = five();
  EXPECT_TRUE(p.should_prune(h, running(3.5), 3, Direction::kMinimize));
  EXPECT_FALSE(p.should_prune(h, running(2.5), 3, Direction::kMinimize));
  EXPECT_FALSE(p.should_prune(h, running(3.0), 3, Direction::kMinimize));  // equal to the median is not worse
  EXPECT_TRUE(p.should_prune(h, running(2.5), 3, Direction::kMaximize));
  EXPECT_FALSE(p.should_prune(h, running(3.5), 3, Direction::kMaximize));
}

TEST(SearchMedianPruner, EvenCountsUseTheMeanOfTheMiddleTwo) {
  MedianPruner p(4);
  auto h = five();
  h.pop_back();  // 1 2 3 4: median 2.5
  EXPECT_TRUE(p.should_prune(h, running(2.6), 3, Direction::kMinimize));
  EXPECT_FALSE(p.should_prune(h, running(2.4), 3, Direction::kMinimize));
}

TEST(SearchMedianPruner, WaitsForStartupTrials) {
  auto h = five();
  h.pop_back();
  EXPECT_FALSE(MedianPruner(5).should_prune(h, running(100), 3, Direction::kMinimize));
  // Running and failed trials have not finished: they do not end the startup phase.
  h.push_back(finished(10, {{3, 1.0}}, Trial::State::kRunning));
  h.push_back(finished(11, {{3, 1.0}}, Trial::State::kFailed));
  EXPECT_FALSE(MedianPruner(5).should_prune(h, running(100), 3, Direction::kMinimize));
  // optuna counts complete trials only: a pruned one neither ends the startup phase...
  h.push_back(finished(12, {{3, 1.0}}, Trial::State::kPruned));
  EXPECT_FALSE(MedianPruner(5).should_prune(h, running(100), 3, Direction::kMinimize));
  h.push_back(finished(13, {{3, 1.0}}));
  EXPECT_TRUE(MedianPruner(5).should_prune(h, running(100), 3, Direction::kMinimize));
}

TEST(SearchMedianPruner, PrunedTrialsDoNotSetTheMedian) {
  MedianPruner p;
  auto h = five();  // median 3 at step 3
  for (int i = 0; i < 6; ++i) h.push_back(finished(20 + i, {{3, 100.0}}, Trial::State::kPruned));  // would lift it to 100
  EXPECT_TRUE(p.should_prune(h, running(3.5), 3, Direction::kMinimize));
}

TEST(SearchMedianPruner, ComparesTheTrialsBestValueSoFar) {
  MedianPruner p;
  auto h = five();
  Trial t = running(3.5);   // worse than the median 3 at step 3...
  t.intermediate[1] = 2.0;  // ...but it reached 2 at step 1: optuna keeps it
  EXPECT_FALSE(p.should_prune(h, t, 3, Direction::kMinimize));
  t.intermediate[1] = NAN;  // a NaN is not a best value
  EXPECT_TRUE(p.should_prune(h, t, 3, Direction::kMinimize));
}

TEST(SearchMedianPruner, WaitsForWarmupSteps) {
  auto h = five();
  EXPECT_FALSE(MedianPruner(5, 4).should_prune(h, running(100), 3, Direction::kMinimize));
  EXPECT_TRUE(MedianPruner(5, 3).should_prune(h, running(100), 3, Direction::kMinimize));
}

TEST(SearchMedianPruner, NeedsOthersAtTheSameStep) {
  MedianPruner p;
  auto h = five();
  Trial t = running(100);
  t.intermediate[7] = 100;
  EXPECT_FALSE(p.should_prune(h, t, 7, Direction::kMinimize));  // nobody reported step 7
  EXPECT_FALSE(p.should_prune(h, t, 2, Direction::kMinimize));  // the trial reported nothing at step 2
  h[0].intermediate[7] = 1;
  EXPECT_TRUE(p.should_prune(h, t, 7, Direction::kMinimize));  // one other trial is enough
}

TEST(SearchMedianPruner, OnlyFinishedTrialsSetTheMedian) {
  MedianPruner p;
  auto h = five();
  for (int i = 0; i < 10; ++i) h.push_back(finished(20 + i, {{3, 100.0}}, Trial::State::kRunning));
  for (int i = 0; i < 10; ++i) h.push_back(finished(40 + i, {{3, 100.0}}, Trial::State::kFailed));
  EXPECT_TRUE(p.should_prune(h, running(3.5), 3, Direction::kMinimize));
}

TEST(SearchMedianPruner, NanIsPrunedAndLeftOutOfTheMedian) {
  MedianPruner p;
  auto h = five();
  EXPECT_TRUE(p.should_prune(h, running(NAN), 3, Direction::kMinimize));  // every value it reported is NaN
  for (int i = 0; i < 6; ++i) h.push_back(finished(10 + i, {{3, NAN}}));
  EXPECT_FALSE(p.should_prune(h, running(2.5), 3, Direction::kMinimize));
}

TEST(SearchMedianPruner, RejectsNegativeSettings) {
  EXPECT_THROW(MedianPruner(-1), std::invalid_argument);
  EXPECT_THROW(MedianPruner(5, -1), std::invalid_argument);
}
