#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "runtime/core/errors.h"
#include "runtime/data/dataloader.h"

using namespace runner;
using namespace runner::data;

namespace {
DatasetPtr range_dataset(int64_t n) {
  return std::make_shared<TensorDataset>(Batch{{"x", at::arange(n, at::kFloat).view({n, 1})}, {"label", at::arange(n, at::kLong)}});
}
}  // namespace

TEST(DataLoader, BatchesCoverTheDatasetWithPartialLast) {
  DataLoader loader(range_dataset(10), std::make_shared<SequentialSampler>(10), {4, false, {}});
  ASSERT_EQ(loader.num_batches(), 3);
  EXPECT_EQ(loader.batch(0).at("x").size(0), 4);
  EXPECT_EQ(loader.batch(2).at("x").size(0), 2);
  EXPECT_TRUE(loader.batch(1).at("labels").equal(at::arange(4, 8, at::kLong)));  // label → labels, like HF
  EXPECT_EQ(loader.batch(1).count("label"), 0u);
}

TEST(DataLoader, DropLast) {
  DataLoader loader(range_dataset(10), std::make_shared<SequentialSampler>(10), {4, true, {}});
  EXPECT_EQ(loader.num_batches(), 2);
  EXPECT_THROW(loader.batch(2), DataError);
}

TEST(DataLoader, RandomSamplerIsAPermutationSeededByEpoch) {
  RandomSampler s(100, 42);
  auto e0 = s.order(0), e0_again = RandomSampler(100, 42).order(0), e1 = s.order(1);
  EXPECT_EQ(e0, e0_again);  // same seed and epoch → same order, whatever ran before
  EXPECT_NE(e0, e1);
  EXPECT_EQ(std::set<int64_t>(e0.begin(), e0.end()).size(), 100u);
  EXPECT_NE(RandomSampler(100, 43).order(0), e0);
}

TEST(DataLoader, ShufflingDoesNotTouchTheGlobalGenerator) {
  at::manual_seed(1);
  const auto a = at::randn({3});
  at::manual_seed(1);
  RandomSampler(50, 0).order(3);
  EXPECT_TRUE(at::randn({3}).equal(a));
}

TEST(DataLoader, ExampleListAndFastGatherAgree) {
  std::vector<Example> examples;
  for (int i = 0; i < 6; ++i) examples.push_back({{"x", at::full({2}, i)}, {"labels", at::scalar_tensor(i, at::kLong)}});
  auto list = std::make_shared<ExampleListDataset>(examples);
  Batch stacked{{"x", at::stack({examples[0]["x"], examples[1]["x"], examples[2]["x"], examples[3]["x"], examples[4]["x"], examples[5]["x"]})},
                {"labels", at::arange(6, at::kLong)}};
  auto tensors = std::make_shared<TensorDataset>(stacked);
  RandomSampler sampler(6, 3);
  DataLoader a(list, std::make_shared<RandomSampler>(6, 3), {4, false, {}});
  DataLoader b(tensors, std::make_shared<RandomSampler>(6, 3), {4, false, {}});
  for (int64_t i = 0; i < 2; ++i) {
    EXPECT_TRUE(a.batch(i).at("x").equal(b.batch(i).at("x")));
    EXPECT_TRUE(a.batch(i).at("labels").equal(b.batch(i).at("labels")));
  }
}

TEST(Collate, MismatchedShapesNameTheField) {
  std::vector<Example> examples{{{"ids", at::zeros({3})}}, {{"ids", at::zeros({4})}}};
  try {
    default_collate(examples);
    FAIL();
  } catch (const DataError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("field 'ids': examples have different shapes [3] and [4]"));
  }
}

TEST(TensorDataset, RowsMustAgree) {
  EXPECT_THROW(TensorDataset(Batch{{"x", at::zeros({3, 2})}, {"y", at::zeros({4})}}), DataError);
  EXPECT_THROW(TensorDataset(Batch{{"x", at::scalar_tensor(1.0)}}), DataError);
  TensorDataset ds(Batch{{"x", at::arange(6).view({3, 2})}});
  EXPECT_TRUE(ds.get(1).at("x").equal(at::tensor({2, 3}, at::kLong)));
  EXPECT_THROW(ds.get(3), DataError);
}
