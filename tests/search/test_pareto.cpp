#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/search/pareto.h"
#include "runtime/search/rng.h"

using namespace runner::search;
using ::testing::ElementsAre;

namespace {

Trial trial(int number, std::vector<double> values, Trial::State state = Trial::State::kComplete) {
  Trial t;
  t.number = number;
  t.state = state;
  t.values = std::move(values);
  return t;
}

const std::vector<Direction> kMinMin = {Direction::kMinimize, Direction::kMinimize};

}  // namespace

TEST(SearchPareto, DominanceFollowsDirections) {
  EXPECT_TRUE(dominates({1, 1}, {1, 2}, kMinMin));
  EXPECT_FALSE(dominates({1, 2}, {1, 2}, kMinMin));  // equal is not strictly better
  EXPECT_FALSE(dominates({1, 3}, {2, 2}, kMinMin));
  EXPECT_TRUE(dominates({1, 3}, {2, 2}, {Direction::kMinimize, Direction::kMaximize}));
}

TEST(SearchPareto, FrontIgnoresUnfinishedTrialsAndKeepsTies) {
  std::vector<Trial> trials = {
      trial(0, {1, 5}), trial(1, {2, 2}), trial(2, {3, 3}),           // 2 is dominated by 1
      trial(3, {2, 2}),                                               // a tie with 1: both on the front
      trial(4, {0, 0}, Trial::State::kPruned), trial(5, {0, 0}, Trial::State::kFailed),
      trial(6, {0, 0}, Trial::State::kRunning), trial(7, {NAN, 0}),  // no valid values
      trial(8, {1}),                                                  // wrong arity
      trial(9, {5, 1})};
  EXPECT_THAT(pareto_front(trials, kMinMin), ElementsAre(0, 1, 3, 9));
  EXPECT_THAT(pareto_front(trials, {Direction::kMaximize, Direction::kMaximize}), ElementsAre(0, 2, 9));
  EXPECT_THAT(pareto_front({}, kMinMin), ElementsAre());
}

TEST(SearchPareto, BestTrialBreaksTiesByNumber) {
  std::vector<Trial> trials = {trial(3, {2.0}), trial(1, {1.0}), trial(2, {1.0}),
                               trial(0, {0.5}, Trial::State::kPruned), trial(4, {0.1}, Trial::State::kFailed),
                               trial(5, {NAN}), trial(6, {7.0})};
  EXPECT_EQ(best_trial(trials, Direction::kMinimize), 1);
  EXPECT_EQ(best_trial(trials, Direction::kMaximize), 6);
  EXPECT_EQ(best_trial({trial(0, {1.0}, Trial::State::kPruned)}, Direction::kMinimize), -1);
  EXPECT_EQ(best_trial({}, Direction::kMinimize), -1);
}

TEST(SearchPareto, NondominatedRanksAndCrowding) {
  std::vector<std::vector<double>> points = {{1, 4}, {2, 2}, {4, 1}, {3, 3}, {5, 5}, {2, 2}};
  EXPECT_THAT(nondominated_ranks(points, kMinMin), ElementsAre(0, 0, 0, 1, 2, 0));
  auto crowd = crowding_distance(points, {0, 1, 2});
  EXPECT_TRUE(std::isinf(crowd[0]));
  EXPECT_TRUE(std::isinf(crowd[2]));
  EXPECT_DOUBLE_EQ(crowd[1], 2.0);  // (4 - 1) / 3 in each objective
}

TEST(SearchPareto, SelectBestSingleObjective) {
  std::vector<std::vector<double>> points = {{3}, {1}, {2}, {1}};
  EXPECT_THAT(select_best(points, {Direction::kMinimize}, 2), ElementsAre(1, 3));
  EXPECT_THAT(select_best(points, {Direction::kMaximize}, 2), ElementsAre(0, 2));
  EXPECT_THAT(select_best(points, {Direction::kMinimize}, 10), ElementsAre(0, 1, 2, 3));
}

TEST(SearchPareto, SelectBestCutsTheLastFrontByCrowding) {
  // Front 0 has five points along a line; keeping three keeps both ends before the middle ones.
  std::vector<std::vector<double>> points = {{0, 4}, {1, 3}, {2, 2}, {3, 1}, {4, 0}, {9, 9}};
  EXPECT_THAT(select_best(points, kMinMin, 2), ElementsAre(0, 4));
  EXPECT_THAT(select_best(points, kMinMin, 3), ElementsAre(0, 1, 4));
  EXPECT_THAT(select_best(points, kMinMin, 6), ElementsAre(0, 1, 2, 3, 4, 5));
}

TEST(SearchPareto, SelectedSetRespectsDominance) {
  Rng rng = make_rng(1, 0, "points");
  for (int round = 0; round < 20; ++round) {
    std::vector<std::vector<double>> points;
    for (int i = 0; i < 40; ++i) points.push_back({uniform01(rng), uniform01(rng), std::round(uniform01(rng) * 4)});
    std::vector<Direction> dirs = {Direction::kMinimize, Direction::kMaximize, Direction::kMinimize};
    size_t k = 1 + round;
    auto good = select_best(points, dirs, k);
    ASSERT_EQ(good.size(), k);
    std::vector<bool> in(points.size(), false);
    for (size_t i : good) in[i] = true;
    auto rank = nondominated_ranks(points, dirs);
    for (size_t g = 0; g < points.size(); ++g)
      for (size_t b = 0; b < points.size(); ++b)
        if (in[g] && !in[b]) {
          EXPECT_FALSE(dominates(points[b], points[g], dirs)) << "a left-out point dominates a selected one";
          EXPECT_LE(rank[g], rank[b]);
        }
  }
}
