#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "runtime/data/dataloader.h"
#include "runtime/data/transforms.h"
#include "tests/data/data_test_util.h"

using namespace runner;
using namespace runner::data;
using runner::testing::data_error;
using ::testing::HasSubstr;

namespace {

DatasetPtr range_dataset(int64_t n) {
  return std::make_shared<TensorDataset>(Batch{{"x", at::arange(n, at::kFloat).view({n, 1})}, {"labels", at::arange(n, at::kLong)}});
}

// The `labels` value (= original index) of every example, in order.
std::vector<int64_t> ids(const DatasetPtr& ds) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < ds->size(); ++i) out.push_back(ds->get(i).at("labels").item<int64_t>());
  return out;
}

class NotThreadSafe : public TensorDataset {
 public:
  using TensorDataset::TensorDataset;
  bool thread_safe() const override { return false; }
};

}  // namespace

TEST(Select, IndicesInAnyOrderWithRepeats) {
  auto ds = select(range_dataset(10), {7, 2, 2, 9});
  EXPECT_EQ(ids(ds), (std::vector<int64_t>{7, 2, 2, 9}));
  EXPECT_EQ(ds->fields(), (std::vector<std::string>{"labels", "x"}));
  EXPECT_THAT(ds->describe(), HasSubstr("data.tensors.select(4 examples)"));
  EXPECT_THAT(data_error([] { select(range_dataset(10), {3, 10}); }), HasSubstr("index 10 out of range for 10 examples"));
  EXPECT_THAT(data_error([] { select(range_dataset(10), {-1}); }), HasSubstr("index -1 out of range"));
  EXPECT_EQ(select(range_dataset(3), {})->size(), 0);
}

TEST(Select, RangesAndChainedViews) {
  auto ds = select_range(range_dataset(10), 2, 8);
  EXPECT_EQ(ids(ds), (std::vector<int64_t>{2, 3, 4, 5, 6, 7}));
  auto inner = select(ds, {5, 0});  // indices are relative to the view
  EXPECT_EQ(ids(inner), (std::vector<int64_t>{7, 2}));
  EXPECT_EQ(dynamic_cast<const IndexView&>(*inner).base()->size(), 10);  // one hop to the source
  EXPECT_THAT(data_error([&] { select(ds, {6}); }), HasSubstr("index 6 out of range for 6 examples"));
  EXPECT_THAT(data_error([] { select_range(range_dataset(5), 3, 6); }), HasSubstr("range [3, 6) does not fit 5 examples"));
  EXPECT_THAT(data_error([] { select_range(range_dataset(5), 3, 2); }), HasSubstr("does not fit"));
  EXPECT_EQ(select_range(range_dataset(5), 5, 5)->size(), 0);
}

TEST(Select, GatherGoesThroughTheView) {
  auto ds = select(range_dataset(10), {9, 8, 1});
  Batch out;
  ASSERT_TRUE(ds->gather({2, 0}, out));
  EXPECT_TRUE(out.at("labels").equal(at::tensor({1, 9}, at::kLong)));
  EXPECT_THROW(ds->gather({3}, out), DataError);
}

TEST(Shuffle, SeededPermutation) {
  auto a = shuffle(range_dataset(50), 7), b = shuffle(range_dataset(50), 7), c = shuffle(range_dataset(50), 8);
  EXPECT_EQ(ids(a), ids(b));
  EXPECT_NE(ids(a), ids(c));
  auto v = ids(a);
  EXPECT_EQ(std::set<int64_t>(v.begin(), v.end()).size(), 50u);
  EXPECT_NE(v, ids(range_dataset(50)));
}

TEST(TrainTestSplit, FractionRoundsTheTestSideUpLikeHF) {
  auto split = train_test_split(range_dataset(10), {0.25, 3, true});
  EXPECT_EQ(split.test->size(), 3);  // ceil(0.25 · 10)
  EXPECT_EQ(split.train->size(), 7);
  auto train = ids(split.train), test = ids(split.test);
  std::set<int64_t> all(train.begin(), train.end());
  all.insert(test.begin(), test.end());
  EXPECT_EQ(all.size(), 10u);  // disjoint and complete
  // test = the first n_test of the seeded permutation, train = the rest
  auto perm = ids(shuffle(range_dataset(10), 3));
  EXPECT_EQ(test, std::vector<int64_t>(perm.begin(), perm.begin() + 3));
  EXPECT_EQ(train, std::vector<int64_t>(perm.begin() + 3, perm.end()));
  auto again = train_test_split(range_dataset(10), {0.25, 3, true});
  EXPECT_EQ(ids(again.test), test);
}

TEST(TrainTestSplit, CountsNoShuffleAndErrors) {
  auto split = train_test_split(range_dataset(10), {2, 0, false});
  EXPECT_EQ(ids(split.train), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(ids(split.test), (std::vector<int64_t>{8, 9}));
  EXPECT_THAT(data_error([] { train_test_split(range_dataset(10), {10, 0, true}); }), HasSubstr("leaves no training examples"));
  EXPECT_THAT(data_error([] { train_test_split(range_dataset(10), {1.5, 0, true}); }), HasSubstr("fraction in (0, 1) or a count >= 1"));
  EXPECT_THAT(data_error([] { train_test_split(range_dataset(10), {0, 0, true}); }), HasSubstr("fraction in (0, 1)"));
  EXPECT_THAT(data_error([] { train_test_split(range_dataset(1), {0.5, 0, true}); }), HasSubstr("leaves no training examples"));
  // Found by fuzzing (UBSan): a whole-number count beyond int64 was converted to an integer.
  EXPECT_THAT(data_error([] { train_test_split(range_dataset(10), {5.5e47, 0, true}); }), HasSubstr("leaves no training examples"));
}

TEST(Map, LazyPerExampleWithFieldsFromTheFirst) {
  int calls = 0;
  auto ds = map(range_dataset(4),
                [&](const Example& e) {
                  ++calls;
                  return Example{{"y", e.at("x") * 2}, {"labels", e.at("labels")}};
                },
                true);
  EXPECT_EQ(calls, 1);  // fields() come from mapping example 0 once
  EXPECT_EQ(ds->fields(), (std::vector<std::string>{"labels", "y"}));
  EXPECT_FLOAT_EQ(ds->get(3).at("y").item<float>(), 6.0f);
  EXPECT_EQ(calls, 2);
  EXPECT_TRUE(ds->thread_safe());
  Batch out;
  EXPECT_FALSE(ds->gather({0}, out));  // the loader stacks mapped examples
  DataLoader loader(ds, std::make_shared<SequentialSampler>(4), {4, false, {}});
  EXPECT_TRUE(loader.batch(0).at("y").equal(at::tensor({0.f, 2.f, 4.f, 6.f}).view({4, 1})));
}

TEST(Map, ThreadSafetyIsInheritedAndErrorsPropagate) {
  auto unsafe = std::make_shared<NotThreadSafe>(Batch{{"x", at::zeros({3, 1})}});
  EXPECT_FALSE(map(unsafe, [](const Example& e) { return e; }, true)->thread_safe());
  EXPECT_FALSE(map(range_dataset(3), [](const Example& e) { return e; }, false)->thread_safe());
  EXPECT_FALSE(select(unsafe, {0})->thread_safe());
  auto failing = [](const Example& e) -> Example {
    if (e.at("labels").item<int64_t>() == 2) throw DataError("bad example 2");
    return e;
  };
  auto ds = map(range_dataset(3), failing, true);
  EXPECT_THAT(data_error([&] { ds->get(2); }), HasSubstr("bad example 2"));
  EXPECT_THAT(data_error([] { map(range_dataset(3), [](const Example&) -> Example { throw DataError("at once"); }, true); }),
              HasSubstr("at once"));  // a broken function fails when the map is made
}

TEST(Filter, EagerKeepsMatchingIndices) {
  int calls = 0;
  auto ds = filter(range_dataset(10), [&](const Example& e, int64_t i) {
    ++calls;
    return e.at("labels").item<int64_t>() % 3 == 0 && i == e.at("labels").item<int64_t>();
  });
  EXPECT_EQ(calls, 10);
  EXPECT_EQ(ids(ds), (std::vector<int64_t>{0, 3, 6, 9}));
  EXPECT_EQ(calls, 10);  // reading does not call the predicate again
  EXPECT_EQ(filter(range_dataset(5), [](const Example&, int64_t) { return false; })->size(), 0);
  auto chained = filter(shuffle(range_dataset(10), 1), [](const Example& e, int64_t) { return e.at("labels").item<int64_t>() < 5; });
  auto v = ids(chained);
  EXPECT_EQ(std::set<int64_t>(v.begin(), v.end()), (std::set<int64_t>{0, 1, 2, 3, 4}));
}
