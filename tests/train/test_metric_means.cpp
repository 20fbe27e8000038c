// MetricMeans (metric_means.h): what compute_loss's named metrics log as. Plain values are the
// mean over the calls since the last log, weighted ones the sum over their items divided by the
// item count; a flush starts afresh, and a checkpoint's state gives back what was not logged.
#include <gtest/gtest.h>

#include "runtime/dist/communicator.h"
#include "runtime/train/metric_means.h"

namespace runner::train {
namespace {

LossResult::Metric plain(const char* name, double v) { return {name, at::scalar_tensor(v), {}}; }
LossResult::Metric weighted(const char* name, double sum, double count) { return {name, at::scalar_tensor(sum), at::scalar_tensor(count)}; }

TEST(MetricMeans, PlainValuesAverageOverCallsWeightedOnesOverTheirItems) {
  dist::DataParallel dp(dist::make_local_communicator(), dist::ParallelConfig{});
  MetricMeans m;
  m.reset(/*rank_parts=*/true);
  m.add({plain("rewards/chosen", 1.0), weighted("entropy", 6.0, 2.0)});
  m.add({plain("rewards/chosen", 4.0), weighted("entropy", 2.0, 6.0)});
  const nlohmann::json logged = m.flush(dp, "eval_");
  EXPECT_DOUBLE_EQ(logged.at("eval_rewards/chosen").get<double>(), 2.5);  // (1 + 4) / 2 calls
  EXPECT_DOUBLE_EQ(logged.at("eval_entropy").get<double>(), 1.0);         // (6 + 2) / (2 + 6) tokens
  EXPECT_TRUE(m.flush(dp).empty());  // nothing since: nothing logged
}

TEST(MetricMeans, ACheckpointedStateContinuesTheAverage) {
  dist::DataParallel dp(dist::make_local_communicator(), dist::ParallelConfig{});
  MetricMeans a, b;
  a.reset(true), b.reset(true);
  a.add({plain("x", 3.0), weighted("y", 5.0, 1.0)});
  b.load(a.state(dp), /*rank=*/0);
  a.add({plain("x", 5.0), weighted("y", 1.0, 3.0)});
  b.add({plain("x", 5.0), weighted("y", 1.0, 3.0)});
  EXPECT_EQ(b.flush(dp), a.flush(dp));
  // With rank parts, only rank 0 takes the global sums back.
  MetricMeans c;
  c.reset(true);
  c.load(nlohmann::json{{"x", {3.0, 1.0}}}, /*rank=*/1);
  c.add({plain("x", 5.0)});
  EXPECT_DOUBLE_EQ(c.flush(dp).at("x").get<double>(), 5.0);
}

// TRL's min_reward / max_reward: each call's extreme (over the ranks: tests/integration/test_reward.py),
// then their mean; a checkpoint carries the calls so far.
TEST(MetricMeans, MinimaAndMaximaAverageTheCallsExtremes) {
  dist::DataParallel dp(dist::make_local_communicator(), dist::ParallelConfig{});
  using Across = LossResult::Metric::Across;
  auto extreme = [](const char* name, double v, Across a) { return LossResult::Metric{name, at::scalar_tensor(v), {}, a}; };
  MetricMeans m, resumed;
  m.reset(true), resumed.reset(true);
  m.add({extreme("min_reward", -1.0, Across::kMin), extreme("max_reward", 2.0, Across::kMax)});
  resumed.load(m.state(dp), 0);
  for (MetricMeans* x : {&m, &resumed}) x->add({extreme("min_reward", -3.0, Across::kMin), extreme("max_reward", 4.0, Across::kMax)});
  m.skip();  // a call this rank did not make: no value, and not counted
  for (int i = 0; i < 40; ++i) m.add({extreme("min_reward", -2.0, Across::kMin), extreme("max_reward", 3.0, Across::kMax)});  // past the buffer's first size
  resumed.skip();
  for (int i = 0; i < 40; ++i) resumed.add({extreme("min_reward", -2.0, Across::kMin), extreme("max_reward", 3.0, Across::kMax)});
  const nlohmann::json logged = m.flush(dp);
  EXPECT_DOUBLE_EQ(logged.at("min_reward").get<double>(), -2.0);  // (-1 + -3 + 40 · -2) / 42 calls
  EXPECT_DOUBLE_EQ(logged.at("max_reward").get<double>(), 3.0);
  EXPECT_EQ(resumed.flush(dp), logged);
  EXPECT_TRUE(m.flush(dp).empty());
}

}  // namespace
}  // namespace runner::train
