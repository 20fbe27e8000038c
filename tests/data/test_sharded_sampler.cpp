#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "runtime/data/dataloader.h"
#include "tests/data/data_test_util.h"

using namespace runner;
using namespace runner::data;
using runner::testing::data_error;
using ::testing::HasSubstr;

namespace {

DatasetPtr range_dataset(int64_t n) { return std::make_shared<TensorDataset>(Batch{{"labels", at::arange(n, at::kLong)}}); }

std::vector<int64_t> values(const Batch& b) {
  const at::Tensor t = b.at("labels");
  return std::vector<int64_t>(t.data_ptr<int64_t>(), t.data_ptr<int64_t>() + t.numel());
}

// For every step: the concatenation over ranks (in rank order) of that rank's micro-batch.
std::vector<std::vector<int64_t>> steps(int64_t n, int64_t per_rank, int64_t world, int64_t epoch, bool drop_last = false) {
  auto base = std::make_shared<RandomSampler>(n, 17);
  std::vector<std::vector<int64_t>> out;
  for (int64_t r = 0; r < world; ++r) {
    DataLoader loader(range_dataset(n), std::make_shared<ShardedSampler>(base, per_rank, r, world, drop_last), {per_rank, false, {}});
    loader.set_epoch(epoch);
    for (int64_t k = 0; k < loader.num_batches(); ++k) {
      if (static_cast<int64_t>(out.size()) <= k) out.resize(static_cast<size_t>(k + 1));
      const auto v = values(loader.batch(k));
      out[static_cast<size_t>(k)].insert(out[static_cast<size_t>(k)].end(), v.begin(), v.end());
    }
  }
  return out;
}

}  // namespace

TEST(ShardedSampler, UnionOverRanksIsTheSingleProcessGlobalBatch) {
  const int64_t n = 103, B = 4, world = 3;
  DataLoader single(range_dataset(n), std::make_shared<RandomSampler>(n, 17), {B * world, false, {}});
  for (int64_t epoch : {0, 1}) {
    single.set_epoch(epoch);
    const auto sharded = steps(n, B, world, epoch);
    ASSERT_EQ(static_cast<int64_t>(sharded.size()), single.num_batches());
    for (int64_t k = 0; k < single.num_batches(); ++k)
      EXPECT_EQ(sharded[static_cast<size_t>(k)], values(single.batch(k))) << "epoch " << epoch << " step " << k;
  }
}

TEST(ShardedSampler, RankTakesItsContiguousSliceOfEachGlobalBatch) {
  auto base = std::make_shared<SequentialSampler>(20);
  EXPECT_EQ(ShardedSampler(base, 2, 0, 3).order(0), (std::vector<int64_t>{0, 1, 6, 7, 12, 13, 18, 19}));
  EXPECT_EQ(ShardedSampler(base, 2, 1, 3).order(0), (std::vector<int64_t>{2, 3, 8, 9, 14, 15}));
  EXPECT_EQ(ShardedSampler(base, 2, 2, 3).order(0), (std::vector<int64_t>{4, 5, 10, 11, 16, 17}));
  // The partial last global batch {18, 19} is cut in order; drop_last drops it on every rank.
  EXPECT_EQ(ShardedSampler(base, 2, 0, 3, true).order(0), (std::vector<int64_t>{0, 1, 6, 7, 12, 13}));
  EXPECT_EQ(ShardedSampler(base, 2, 2, 3, true).order(0), (std::vector<int64_t>{4, 5, 10, 11, 16, 17}));
  EXPECT_EQ(ShardedSampler(base, 5, 0, 1).order(0), base->order(0));  // world 1 is the base order
}

TEST(ShardedSampler, StepsDoNotDependOnWorldSize) {
  // Global batch 12 as 1 × 12, 2 × 6, 3 × 4 and 4 × 3.
  const auto one = steps(100, 12, 1, 2), two = steps(100, 6, 2, 2), three = steps(100, 4, 3, 2), four = steps(100, 3, 4, 2);
  EXPECT_EQ(one, two);
  EXPECT_EQ(one, three);
  EXPECT_EQ(one, four);
  const auto last = one.back();
  EXPECT_EQ(last.size(), 4u);  // 100 = 8 × 12 + 4
  EXPECT_EQ(steps(100, 4, 3, 2, true).size(), 8u);
}

TEST(ShardedSampler, PartialLastBatchPerRank) {
  auto base = std::make_shared<SequentialSampler>(10);
  // Global batches of 8: {0..7}, {8, 9}. Rank 0 gets {8, 9} as a short last batch, rank 1 none.
  DataLoader r0(range_dataset(10), std::make_shared<ShardedSampler>(base, 4, 0, 2), {4, false, {}});
  DataLoader r1(range_dataset(10), std::make_shared<ShardedSampler>(base, 4, 1, 2), {4, false, {}});
  EXPECT_EQ(r0.num_batches(), 2);
  EXPECT_EQ(values(r0.batch(1)), (std::vector<int64_t>{8, 9}));
  EXPECT_EQ(r1.num_batches(), 1);
}

TEST(ShardedSampler, BadArguments) {
  auto base = std::make_shared<SequentialSampler>(10);
  EXPECT_THAT(data_error([&] { ShardedSampler(base, 2, 3, 3); }), HasSubstr("rank 3 is not in [0, 3)"));
  EXPECT_THAT(data_error([&] { ShardedSampler(base, 2, -1, 3); }), HasSubstr("rank -1"));
  EXPECT_THAT(data_error([&] { ShardedSampler(base, 0, 0, 1); }), HasSubstr("batch size must be >= 1"));
  EXPECT_THAT(data_error([&] { ShardedSampler(nullptr, 1, 0, 1); }), HasSubstr("no base sampler"));
}
