#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "runtime/search/sampler.h"
#include "tests/search/study.h"

using namespace runner::search;
using namespace runner::search::testing;

namespace {

const std::vector<Param> kSpace = {{"opt", cat_dist({"sgd", "adam", "adamw"})}, {"layers", int_dist(1, 2)}};

std::vector<double> nothing(const Trial&) { return {0.0}; }

}  // namespace

TEST(SearchGridSampler, CoversTheProductOnceThenWraps) {
  auto s = make_grid_sampler();
  EXPECT_EQ(s->grid_size(), std::nullopt);
  auto trials = run_study(*s, kSpace, nothing, 7);
  EXPECT_EQ(s->grid_size(), 6);
  std::set<std::pair<std::string, int64_t>> points;
  for (int i = 0; i < 6; ++i) {
    ASSERT_TRUE(trials[i].param("layers")->is_number_integer());
    points.insert({trials[i].param("opt")->get<std::string>(), trials[i].param("layers")->get<int64_t>()});
  }
  EXPECT_EQ(points.size(), 6u);
  // The first-suggested parameter varies fastest.
  EXPECT_EQ(*trials[0].param("opt"), "sgd");
  EXPECT_EQ(*trials[1].param("opt"), "adam");
  EXPECT_EQ(*trials[2].param("opt"), "adamw");
  EXPECT_EQ(*trials[2].param("layers"), 1);
  EXPECT_EQ(*trials[3].param("layers"), 2);
  EXPECT_EQ(trials[6].params, trials[0].params);  // wrapped
}

TEST(SearchGridSampler, FloatsNeedAStep) {
  auto s = make_grid_sampler();
  Trial t;
  try {
    s->sample({}, t, "lr", float_dist(0, 1));
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "grid search needs discrete values: give lr a step or use suggest_categorical");
  }
}

TEST(SearchGridSampler, SteppedFloats) {
  auto s = make_grid_sampler();
  std::vector<Param> space = {{"x", float_dist(0, 1, false, 0.25)}, {"lr", float_dist(0.001, 0.003, false, 0.001)}};  // optuna refuses log with a step
  auto trials = run_study(*s, space, nothing, 15);
  EXPECT_EQ(s->grid_size(), 15);
  std::vector<double> xs, lrs;
  for (int i = 0; i < 5; ++i) xs.push_back(trials[i].param("x")->get<double>());
  for (int i = 0; i < 15; i += 5) lrs.push_back(trials[i].param("lr")->get<double>());
  EXPECT_THAT(xs, ::testing::ElementsAre(0, 0.25, 0.5, 0.75, 1.0));
  EXPECT_THAT(lrs, ::testing::ElementsAre(::testing::DoubleNear(0.001, 1e-15), ::testing::DoubleNear(0.002, 1e-15),
                                          ::testing::DoubleNear(0.003, 1e-15)));
}

TEST(SearchGridSampler, ResumesAnExistingSearchInItsOrder) {
  auto first = make_grid_sampler();
  auto trials = run_study(*first, kSpace, nothing, 3);
  // A new sampler on the same history keeps "opt" as the fast axis even if "layers" is asked first.
  auto second = make_grid_sampler();
  Trial t;
  t.number = 3;
  EXPECT_EQ(second->sample(trials, t, "layers", kSpace[1].d), 2);
  EXPECT_EQ(second->sample(trials, t, "opt", kSpace[0].d), "sgd");
  EXPECT_EQ(second->grid_size(), 6);
}

TEST(SearchGridSampler, ChangedDistributionIsAnError) {
  auto s = make_grid_sampler();
  Trial t;
  s->sample({}, t, "n", int_dist(1, 3));
  EXPECT_THROW(s->sample({}, t, "n", int_dist(1, 4)), std::invalid_argument);
}
