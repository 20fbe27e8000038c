// LR multipliers against values worked out by hand from HF's schedule formulas
// (base lr 10, 2 warmup steps, 10 training steps).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/core/errors.h"
#include "runtime/optim/scheduler.h"

using namespace runner;
using namespace runner::optim;

namespace {
std::vector<double> lrs(const std::string& type, nlohmann::json kwargs = nlohmann::json::object(), int warmup = 2) {
  auto s = make_scheduler(type, warmup, 10, kwargs, 10.0);
  std::vector<double> out;
  for (int i = 0; i < 10; ++i) {
    out.push_back(10.0 * s->current_factor());
    s->step();
  }
  return out;
}
void expect_near(const std::vector<double>& got, const std::vector<double>& want, double tol = 0.01) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "step " << i;
}
}  // namespace

TEST(Schedulers, Linear) { expect_near(lrs("linear"), {0, 5, 10, 8.75, 7.5, 6.25, 5, 3.75, 2.5, 1.25}); }
TEST(Schedulers, Constant) { expect_near(lrs("constant"), std::vector<double>(10, 10.0)); }
TEST(Schedulers, ConstantWithWarmup) { expect_near(lrs("constant_with_warmup"), {0, 5, 10, 10, 10, 10, 10, 10, 10, 10}); }
TEST(Schedulers, Cosine) { expect_near(lrs("cosine"), {0, 5, 10, 9.62, 8.54, 6.91, 5, 3.09, 1.46, 0.38}); }
TEST(Schedulers, CosineWithRestarts) {
  expect_near(lrs("cosine_with_restarts", {{"num_cycles", 2}}), {0, 5, 10, 8.54, 5, 1.46, 10, 8.54, 5, 1.46});
}
TEST(Schedulers, Polynomial) {
  expect_near(lrs("polynomial", {{"power", 2.0}}), {0, 5, 10, 7.656, 5.625, 3.906, 2.5, 1.406, 0.625, 0.156});
}
TEST(Schedulers, InverseSqrt) { expect_near(lrs("inverse_sqrt"), {0, 5, 10, 8.165, 7.071, 6.325, 5.774, 5.345, 5, 4.714}); }
TEST(Schedulers, CosineWithMinLr) {
  // cosine factor c, floor 0.1: lr = 10 · (c · 0.9 + 0.1)
  expect_near(lrs("cosine_with_min_lr", {{"min_lr_rate", 0.1}}), {0, 5, 10, 9.66, 8.68, 7.22, 5.5, 3.78, 2.32, 1.34});
  expect_near(lrs("cosine_with_min_lr", {{"min_lr", 1.0}}), lrs("cosine_with_min_lr", {{"min_lr_rate", 0.1}}));
}
TEST(Schedulers, WarmupStableDecay) {
  // 2 warmup, 4 stable, 4 linear decay steps to 0
  expect_near(lrs("warmup_stable_decay", {{"num_decay_steps", 4}, {"decay_type", "linear"}}), {0, 5, 10, 10, 10, 10, 10, 7.5, 5, 2.5});
}

TEST(Schedulers, BadKwargsNameTheKey) {
  try {
    lrs("cosine", {{"num_cycle", 1}});
    FAIL();
  } catch (const ArgumentError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("args.lr_scheduler_kwargs.num_cycle: not an option of cosine; did you mean 'num_cycles'?"));
  }
  EXPECT_THROW(lrs("cosine_with_min_lr"), ArgumentError);
  EXPECT_THROW(lrs("polynomial", {{"lr_end", 20.0}}), ArgumentError);
  EXPECT_THROW(lrs("warmup_stable_decay"), ArgumentError);
  EXPECT_THROW(lrs("linear", {{"anything", 1}}), ArgumentError);
}
