#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/search/trial.h"
#include "tests/search/study.h"

using namespace runner::search;
using namespace runner::search::testing;
using ::testing::HasSubstr;

namespace {

std::string check_error(const Distribution& d, const std::string& name = "lr") {
  try {
    d.check(name);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(SearchDirection, ParsesNamesAndAbbreviations) {
  EXPECT_EQ(parse_direction("minimize"), Direction::kMinimize);
  EXPECT_EQ(parse_direction("min"), Direction::kMinimize);
  EXPECT_EQ(parse_direction("maximize"), Direction::kMaximize);
  EXPECT_EQ(parse_direction("MAX"), Direction::kMaximize);
  EXPECT_STREQ(direction_name(Direction::kMaximize), "maximize");
  try {
    parse_direction("upwards");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("'upwards'"));
    EXPECT_THAT(e.what(), HasSubstr("\"minimize\" or \"maximize\""));
  }
  EXPECT_THROW(parse_direction(""), std::invalid_argument);
}

TEST(SearchDistribution, CheckAcceptsValidDistributions) {
  EXPECT_EQ(check_error(float_dist(1e-6, 1, true)), "");
  EXPECT_EQ(check_error(float_dist(0, 1, false, 0.1)), "");
  EXPECT_EQ(check_error(float_dist(2, 2)), "");
  EXPECT_EQ(check_error(int_dist(-3, 7, false, 2)), "");
  EXPECT_EQ(check_error(int_dist(1, 1024, true)), "");
  EXPECT_EQ(check_error(cat_dist({"a", 1, 2.5, true})), "");
}

TEST(SearchDistribution, CheckNamesTheProblem) {
  EXPECT_THAT(check_error(float_dist(1, 0.5)), HasSubstr("parameter 'lr': low (1) must not exceed high (0.5)"));
  EXPECT_THAT(check_error(float_dist(0, 1, true)), HasSubstr("log scale needs low > 0"));
  EXPECT_THAT(check_error(float_dist(-1, 1, true)), HasSubstr("log scale needs low > 0"));
  EXPECT_THAT(check_error(float_dist(0, 1, false, 0)), HasSubstr("step must be > 0"));
  EXPECT_THAT(check_error(float_dist(0, 1, false, -0.5)), HasSubstr("step must be > 0"));
  EXPECT_THAT(check_error(float_dist(0, INFINITY)), HasSubstr("finite"));
  EXPECT_THAT(check_error(float_dist(NAN, 1)), HasSubstr("finite"));
  EXPECT_THAT(check_error(int_dist(0.5, 3)), HasSubstr("whole numbers"));
  EXPECT_THAT(check_error(int_dist(0, 3, false, 1.5)), HasSubstr("whole number"));
  // optuna's FloatDistribution / IntDistribution refuse these; they were sampled on a grid here.
  EXPECT_THAT(check_error(float_dist(0.01, 0.1, true, 0.01)), HasSubstr("step is not supported with log = true"));
  EXPECT_THAT(check_error(int_dist(1, 10, true, 2)), HasSubstr("step is not supported with log = true (other than 1)"));
  EXPECT_EQ(check_error(int_dist(1, 10, true, 1)), "");
  EXPECT_THAT(check_error(cat_dist({}), "opt"), HasSubstr("parameter 'opt': categorical needs at least one choice"));
  EXPECT_THAT(check_error(cat_dist({"a", nlohmann::json::object()})), HasSubstr("choice 2 is object"));
  EXPECT_THAT(check_error(cat_dist({"a", nullptr})), HasSubstr("choice 2 is null"));
  EXPECT_THAT(check_error(cat_dist({"a", "b", "a"})), HasSubstr("\"a\" is listed twice"));
}

TEST(SearchDistribution, Equality) {
  EXPECT_EQ(int_dist(1, 5), int_dist(1, 5, false, 1));  // an int's step is 1 whether written or not
  EXPECT_NE(int_dist(1, 5), int_dist(1, 5, false, 2));
  EXPECT_NE(float_dist(1, 5), int_dist(1, 5));
  EXPECT_NE(float_dist(1, 5), float_dist(1, 5, true));
  EXPECT_NE(float_dist(1, 5), float_dist(1, 6));
  EXPECT_NE(float_dist(1, 5), float_dist(1, 5, false, 1));
  EXPECT_EQ(cat_dist({"a", "b"}), cat_dist({"a", "b"}));
  EXPECT_NE(cat_dist({"a", "b"}), cat_dist({"b", "a"}));
}

TEST(SearchTrial, ParamLookupAndStateNames) {
  Trial t;
  t.params = {{"x", 1.5}, {"n", 3}};
  ASSERT_NE(t.param("n"), nullptr);
  EXPECT_EQ(*t.param("n"), 3);
  EXPECT_EQ(t.param("y"), nullptr);
  EXPECT_STREQ(state_name(Trial::State::kComplete), "complete");
  EXPECT_STREQ(state_name(Trial::State::kPruned), "pruned");
  EXPECT_STREQ(state_name(Trial::State::kFailed), "failed");
  EXPECT_STREQ(state_name(Trial::State::kRunning), "running");
}
