// The numerical building blocks under the samplers: normal CDF/inverse, truncated draws, grids and
// the Parzen estimators.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/search/parzen_estimator.h"
#include "runtime/search/rng.h"
#include "runtime/search/space.h"
#include "tests/search/study.h"

using namespace runner::search;
using namespace runner::search::testing;

TEST(SearchRng, NormalPpfInvertsCdf) {
  // Only the lower tail can be tested deep: above ~3, Phi(z) is 1 - tiny and z no longer round-trips.
  for (double z : {-30.0, -8.0, -2.0, -0.3, 0.0, 0.7, 3.0}) EXPECT_NEAR(normal_ppf(normal_cdf(z)), z, 1e-8) << z;
  EXPECT_NEAR(normal_ppf(1 - 1e-10), -normal_ppf(1e-10), 1e-5);
  EXPECT_NEAR(normal_cdf(1.959963984540054), 0.975, 1e-12);
  EXPECT_EQ(normal_ppf(0), -INFINITY);
  EXPECT_EQ(normal_ppf(1), INFINITY);
}

TEST(SearchRng, LogNormalIntervalInTheTails) {
  EXPECT_NEAR(log_normal_interval(-INFINITY, INFINITY), 0.0, 1e-12);
  EXPECT_NEAR(std::exp(log_normal_interval(-1, 1)), 0.682689492137, 1e-9);
  // Far in the upper tail, 1 - Phi would round to 0; the mirrored form keeps it exact.
  EXPECT_NEAR(log_normal_interval(10, INFINITY), std::log(7.61985302416e-24), 1e-6);
  EXPECT_NEAR(log_normal_interval(-INFINITY, -40), -804.608, 1e-3);
  EXPECT_EQ(log_normal_interval(2, 2), -INFINITY);
}

TEST(SearchRng, TruncatedNormalStaysInsideAndHasTheRightMean) {
  Rng rng = make_rng(7, 0, "x");
  double sum = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    double x = truncated_normal(rng, 0.0, 1.0, 0.0, 5.0);
    ASSERT_GE(x, 0.0);
    ASSERT_LE(x, 5.0);
    sum += x;
  }
  EXPECT_NEAR(sum / n, std::sqrt(2 / M_PI), 0.02);  // the half-normal's mean
}

TEST(SearchRng, StreamsDependOnSeedTrialAndName) {
  EXPECT_EQ(make_rng(1, 2, "x")(), make_rng(1, 2, "x")());
  EXPECT_NE(make_rng(1, 2, "x")(), make_rng(2, 2, "x")());
  EXPECT_NE(make_rng(1, 2, "x")(), make_rng(1, 3, "x")());
  EXPECT_NE(make_rng(1, 2, "x")(), make_rng(1, 2, "y")());
}

TEST(SearchSpace, GridsOfStepsAndChoices) {
  EXPECT_EQ(grid_count(int_dist(1, 10)), 10);
  EXPECT_EQ(grid_count(int_dist(1, 10, false, 3)), 4);  // 1 4 7 10
  EXPECT_EQ(grid_count(int_dist(1, 9, false, 3)), 3);   // 9 is off the grid: 1 4 7
  EXPECT_EQ(grid_count(float_dist(0, 0.3, false, 0.1)), 4);
  EXPECT_EQ(grid_count(cat_dist({"a", "b"})), 2);
  EXPECT_THROW(grid_count(float_dist(0, 1)), std::invalid_argument);
  EXPECT_DOUBLE_EQ(grid_value(float_dist(0, 0.3, false, 0.1), 3).get<double>(), 0.3);
  EXPECT_TRUE(grid_value(int_dist(1, 10), 2).is_number_integer());
  EXPECT_EQ(snap(int_dist(1, 10, false, 3), 5.4), 4);
  EXPECT_EQ(snap(int_dist(1, 10, false, 3), 100), 10);
  EXPECT_EQ(snap(float_dist(-1, 1), 3.0), 1.0);
  auto [lo, hi] = grid_bin(int_dist(1, 4, true, 2), 0);  // the first bin of a log grid stays positive
  EXPECT_GT(lo, 0);
  EXPECT_DOUBLE_EQ(hi, 2);
}

TEST(SearchParzen, ObservationWeightsRampOldTrialsDown) {
  EXPECT_EQ(observation_weights(3), std::vector<double>(3, 1.0));
  auto w = observation_weights(30);
  ASSERT_EQ(w.size(), 30u);
  EXPECT_DOUBLE_EQ(w[0], 1.0 / 30);
  EXPECT_DOUBLE_EQ(w[4], 1.0);
  for (size_t i = 1; i < w.size(); ++i) EXPECT_GE(w[i], w[i - 1]);
  EXPECT_DOUBLE_EQ(observation_weights(26)[0], 1.0 / 26);
}

TEST(SearchParzen, KernelsPriorAndBandwidths) {
  ParzenEstimator p({1.0, 2.0, 8.0}, 0.0, 10.0);
  ASSERT_EQ(p.mus().size(), 4u);
  EXPECT_DOUBLE_EQ(p.mus()[3], 5.0);      // the prior sits at the middle of the range
  EXPECT_DOUBLE_EQ(p.sigmas()[3], 10.0);  // and spans all of it
  EXPECT_DOUBLE_EQ(p.sigmas()[0], 2.0);   // outermost: 2 - 1, clipped up to range / (1 + 4 kernels)
  EXPECT_DOUBLE_EQ(p.sigmas()[1], 3.0);   // max(2 - 1, 5 - 2)
  EXPECT_DOUBLE_EQ(p.sigmas()[2], 3.0);   // outermost: 8 - 5
  double total = 0;
  for (double w : p.weights()) total += w;
  EXPECT_NEAR(total, 1.0, 1e-12);
  // Close observations are clipped to range / min(100, 1 + kernels).
  ParzenEstimator tight({5.0, 5.0 + 1e-9}, 0.0, 10.0);
  EXPECT_DOUBLE_EQ(tight.sigmas()[0], 10.0 / 4);
}

TEST(SearchParzen, DensityIsNormalisedOverTheRange) {
  ParzenEstimator p({0.5, 0.9, 0.95, 3.0}, 0.0, 4.0);
  double integral = 0, dx = 1e-4;
  for (double x = dx / 2; x < 4.0; x += dx) integral += std::exp(p.log_pdf(x)) * dx;
  EXPECT_NEAR(integral, 1.0, 1e-4);
  EXPECT_NEAR(p.log_mass(0.0, 4.0), 0.0, 1e-9);
  EXPECT_NEAR(std::exp(p.log_mass(0.0, 1.0)) + std::exp(p.log_mass(1.0, 4.0)), 1.0, 1e-9);
  Rng rng = make_rng(3, 0, "x");
  int near_cluster = 0;
  for (int i = 0; i < 4000; ++i) {
    double x = p.sample(rng);
    ASSERT_GE(x, 0.0);
    ASSERT_LE(x, 4.0);
    near_cluster += x < 1.5;
  }
  EXPECT_NEAR(near_cluster / 4000.0, std::exp(p.log_mass(0.0, 1.5)), 0.03);
}

TEST(SearchParzen, CategoricalHasALaplacePrior) {
  CategoricalEstimator c({0, 0, 0, 2}, 3);
  EXPECT_NEAR(std::exp(c.log_p(0)), 4.0 / 7, 1e-12);
  EXPECT_NEAR(std::exp(c.log_p(1)), 1.0 / 7, 1e-12);
  EXPECT_NEAR(std::exp(c.log_p(2)), 2.0 / 7, 1e-12);
}
