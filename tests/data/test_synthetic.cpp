#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/data/sources/synthetic.h"
#include "tests/data/data_test_util.h"

using namespace runner;
using namespace runner::data;
using runner::testing::data_error;
using ::testing::HasSubstr;

TEST(SyntheticRegression, LabelsAreTheLinearFunctionPlusNoise) {
  auto ds = synthetic_regression({/*n=*/500, /*features=*/3, /*noise=*/0.0, /*seed=*/7});
  ASSERT_EQ(ds->size(), 500);
  const at::Tensor& x = ds->columns().at("x");
  const at::Tensor& y = ds->columns().at("labels");
  EXPECT_EQ(x.sizes(), at::IntArrayRef({500, 3}));
  EXPECT_EQ(y.sizes(), at::IntArrayRef({500, 1}));
  EXPECT_EQ(x.scalar_type(), at::kFloat);
  EXPECT_EQ(ds->weight().sizes(), at::IntArrayRef({1, 3}));  // nn.Linear(3, 1).weight's layout
  EXPECT_EQ(ds->bias().sizes(), at::IntArrayRef({1}));
  // Without noise the labels are exactly x·wᵀ + b.
  EXPECT_TRUE(y.allclose(x.matmul(ds->weight().t()) + ds->bias(), 1e-5, 1e-6));

  // With noise, least squares recovers w and b closely.
  auto noisy = synthetic_regression({2000, 3, 0.1, 7});
  at::Tensor X = at::cat({noisy->columns().at("x"), at::ones({2000, 1})}, 1).to(at::kDouble);
  at::Tensor Y = noisy->columns().at("labels").to(at::kDouble);
  at::Tensor coef = at::linalg_solve(X.t().matmul(X), X.t().matmul(Y)).squeeze(1);
  EXPECT_TRUE(coef.slice(0, 0, 3).allclose(noisy->weight().squeeze(0).to(at::kDouble), 0, 0.02));
  EXPECT_NEAR(coef[3].item<double>(), noisy->bias().item<double>(), 0.02);
  const double resid = (Y - X.matmul(coef.unsqueeze(1))).std().item<double>();
  EXPECT_NEAR(resid, 0.1, 0.01);
}

TEST(SyntheticRegression, SameSeedSameDataAndGlobalRngUntouched) {
  at::manual_seed(5);
  const at::Tensor before = at::randn({4});
  at::manual_seed(5);
  auto a = synthetic_regression({50, 2, 0.1, 1});
  EXPECT_TRUE(at::randn({4}).equal(before));
  auto b = synthetic_regression({50, 2, 0.1, 1});
  auto c = synthetic_regression({50, 2, 0.1, 2});
  EXPECT_TRUE(a->columns().at("x").equal(b->columns().at("x")));
  EXPECT_TRUE(a->weight().equal(b->weight()));
  EXPECT_FALSE(a->weight().equal(c->weight()));
  EXPECT_THAT(a->describe(), HasSubstr("data.synthetic.regression(n=50"));
}

TEST(SyntheticRegression, BadOptions) {
  EXPECT_THAT(data_error([] { synthetic_regression({0, 1, 0.1, 0}); }), HasSubstr("n must be >= 1"));
  EXPECT_THAT(data_error([] { synthetic_regression({10, 0, 0.1, 0}); }), HasSubstr("features must be >= 1"));
  EXPECT_THAT(data_error([] { synthetic_regression({10, 1, -1, 0}); }), HasSubstr("noise must be >= 0"));
}

TEST(SyntheticClassification, BalancedBlobsAroundSeparatedCenters) {
  ClassificationOptions o;
  o.n = 301, o.features = 4, o.classes = 3, o.seed = 11, o.separation = 10.0;
  auto ds = std::static_pointer_cast<const TensorDataset>(synthetic_classification(o));
  const at::Tensor& x = ds->columns().at("x");
  const at::Tensor& y = ds->columns().at("labels");
  EXPECT_EQ(x.scalar_type(), at::kFloat);
  EXPECT_EQ(y.scalar_type(), at::kLong);
  EXPECT_EQ(y.sizes(), at::IntArrayRef({301}));
  EXPECT_TRUE(at::bincount(y).equal(at::tensor({101, 100, 100}, at::kLong)));  // balanced, remainder to the first
  EXPECT_FALSE(y.slice(0, 0, 3).equal(at::tensor({0, 1, 2}, at::kLong)) && y.slice(0, 3, 6).equal(at::tensor({0, 1, 2}, at::kLong)))
      << "labels should be shuffled";
  // Far-apart centers: nearest class mean classifies (almost) everything.
  std::vector<at::Tensor> means;
  for (int k = 0; k < 3; ++k) means.push_back(x.index({y.eq(k)}).mean(0));
  at::Tensor d = at::cdist(x, at::stack(means));
  EXPECT_GT(d.argmin(1).eq(y).to(at::kFloat).mean().item<double>(), 0.97);
  // Within-class spread is N(0, 1).
  o.n = 6000;
  auto big = std::static_pointer_cast<const TensorDataset>(synthetic_classification(o));
  const at::Tensor x0 = big->columns().at("x").index({big->columns().at("labels").eq(0)});
  EXPECT_NEAR((x0 - x0.mean(0)).std().item<double>(), 1.0, 0.05);
}

TEST(SyntheticClassification, BadOptions) {
  ClassificationOptions o;
  o.n = 10, o.classes = 1;
  EXPECT_THAT(data_error([&] { synthetic_classification(o); }), HasSubstr("classes must be >= 2"));
  o.classes = 2, o.n = 0;
  EXPECT_THAT(data_error([&] { synthetic_classification(o); }), HasSubstr("n must be >= 1"));
}
