#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "runtime/search/sampler.h"
#include "tests/search/study.h"

using namespace runner::search;
using namespace runner::search::testing;

namespace {

std::vector<nlohmann::json> draw(Sampler& s, const Distribution& d, int n, const std::string& name = "p") {
  std::vector<nlohmann::json> out;
  for (int i = 0; i < n; ++i) {
    Trial t;
    t.number = i;
    out.push_back(s.sample({}, t, name, d));
  }
  return out;
}

double median(std::vector<double> xs) {
  std::sort(xs.begin(), xs.end());
  return xs[xs.size() / 2];
}

}  // namespace

TEST(SearchRandomSampler, FloatsInsideBoundsAndSpreadOut) {
  auto s = make_random_sampler(1);
  double lo = 1e9, hi = -1e9;
  for (const auto& v : draw(*s, float_dist(-1, 2), 2000)) {
    ASSERT_TRUE(v.is_number_float());
    double x = v.get<double>();
    ASSERT_GE(x, -1);
    ASSERT_LE(x, 2);
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  EXPECT_LT(lo, -0.99);
  EXPECT_GT(hi, 1.99);
  EXPECT_EQ(draw(*s, float_dist(3, 3), 1)[0], 3.0);
}

TEST(SearchRandomSampler, IntsAndSteppedFloatsStayOnTheGrid) {
  auto s = make_random_sampler(2);
  std::set<int64_t> ints;
  for (const auto& v : draw(*s, int_dist(3, 18, false, 2), 500)) {
    ASSERT_TRUE(v.is_number_integer()) << v;
    ints.insert(v.get<int64_t>());
  }
  EXPECT_EQ(ints, (std::set<int64_t>{3, 5, 7, 9, 11, 13, 15, 17}));  // 18 is off the grid
  std::set<double> floats;
  for (const auto& v : draw(*s, float_dist(0, 1, false, 0.3), 500)) {
    ASSERT_TRUE(v.is_number_float());
    double k = v.get<double>() / 0.3;
    ASSERT_NEAR(k, std::round(k), 1e-9) << v;
    floats.insert(std::round(k));
  }
  EXPECT_EQ(floats, (std::set<double>{0, 1, 2, 3}));
}

TEST(SearchRandomSampler, LogScaleIsLogUniform) {
  auto s = make_random_sampler(3);
  std::vector<double> xs;
  for (const auto& v : draw(*s, float_dist(1e-6, 1, true), 4000)) {
    double x = v.get<double>();
    ASSERT_GE(x, 1e-6);
    ASSERT_LE(x, 1);
    xs.push_back(std::log10(x));
  }
  EXPECT_NEAR(median(xs), -3.0, 0.15);  // the geometric mean; a uniform draw would give 0.5 (-0.3)
  int below = std::count_if(xs.begin(), xs.end(), [](double l) { return l < -5; });
  EXPECT_NEAR(below / 4000.0, 1.0 / 6, 0.03);

  std::vector<double> ints;
  for (const auto& v : draw(*s, int_dist(1, 1000, true), 4000)) {
    ASSERT_TRUE(v.is_number_integer());
    ASSERT_GE(v.get<int64_t>(), 1);
    ASSERT_LE(v.get<int64_t>(), 1000);
    ints.push_back(v.get<double>());
  }
  // Log-uniform over the outer bin edges [0.5, 1000.5]: median sqrt(0.5 * 1000.5) ~ 22, not 500.
  EXPECT_NEAR(std::log10(median(ints)), std::log10(std::sqrt(0.5 * 1000.5)), 0.1);
}

TEST(SearchRandomSampler, CategoricalCoversAllChoices) {
  auto s = make_random_sampler(4);
  Distribution d = cat_dist({"adamw", 3, true});
  std::map<std::string, int> counts;
  for (const auto& v : draw(*s, d, 600)) {
    ASSERT_NE(std::find(d.choices.begin(), d.choices.end(), v), d.choices.end()) << v;
    ++counts[v.dump()];
  }
  ASSERT_EQ(counts.size(), 3u);
  for (const auto& [choice, n] : counts) EXPECT_GT(n, 150) << choice;
}

TEST(SearchRandomSampler, ReproducibleBySeed) {
  auto a = make_random_sampler(42), b = make_random_sampler(42), c = make_random_sampler(43);
  auto da = draw(*a, float_dist(0, 1), 20), db = draw(*b, float_dist(0, 1), 20), dc = draw(*c, float_dist(0, 1), 20);
  EXPECT_EQ(da, db);
  EXPECT_NE(da, dc);
  // A value belongs to (trial, parameter): suggesting another parameter first does not shift it.
  Trial t;
  t.number = 5;
  nlohmann::json first = a->sample({}, t, "lr", float_dist(0, 1));
  b->sample({}, t, "wd", float_dist(0, 1));
  EXPECT_EQ(b->sample({}, t, "lr", float_dist(0, 1)), first);
  EXPECT_NE(b->sample({}, t, "wd", float_dist(0, 1)), first);
  EXPECT_EQ(a->grid_size(), std::nullopt);
}

TEST(SearchRandomSampler, RejectsInvalidDistributions) {
  auto s = make_random_sampler(0);
  EXPECT_THROW(draw(*s, float_dist(2, 1), 1), std::invalid_argument);
  EXPECT_THROW(draw(*s, cat_dist({}), 1), std::invalid_argument);
}
