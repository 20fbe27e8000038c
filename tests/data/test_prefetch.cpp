#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

#include "runtime/data/dataloader.h"
#include "tests/data/data_test_util.h"

using namespace runner;
using namespace runner::data;
using runner::testing::data_error;
using ::testing::HasSubstr;

namespace {

// Examples of varying length built on demand; optionally slow, failing at one index, or
// claiming not to be thread-safe. Records which threads read it.
class ProbeDataset : public Dataset {
 public:
  explicit ProbeDataset(int64_t n, int sleep_us = 0, int64_t fail_at = -1, bool safe = true)
      : n_(n), sleep_us_(sleep_us), fail_at_(fail_at), safe_(safe) {}
  int64_t size() const override { return n_; }
  Example get(int64_t i) const override {
    if (sleep_us_) std::this_thread::sleep_for(std::chrono::microseconds(sleep_us_));
    {
      std::lock_guard<std::mutex> lock(mu_);
      threads_.insert(std::this_thread::get_id());
      ++reads_;
    }
    if (i == fail_at_) throw DataError("cannot read example " + std::to_string(i), "probe.jsonl:" + std::to_string(i + 1));
    return {{"input_ids", at::arange(i % 5 + 1, at::kLong) + i}, {"labels", at::scalar_tensor(i, at::kLong)}};
  }
  std::vector<std::string> fields() const override { return {"input_ids", "labels"}; }
  bool thread_safe() const override { return safe_; }
  std::string describe() const override { return "probe"; }
  std::set<std::thread::id> threads() const {
    std::lock_guard<std::mutex> lock(mu_);
    return threads_;
  }
  int64_t reads() const {
    std::lock_guard<std::mutex> lock(mu_);
    return reads_;
  }

 private:
  int64_t n_;
  int sleep_us_;
  int64_t fail_at_;
  bool safe_;
  mutable std::mutex mu_;
  mutable std::set<std::thread::id> threads_;
  mutable int64_t reads_ = 0;
};

LoaderOptions options(int64_t bs, int64_t workers, bool drop_last = false) {
  LoaderOptions o;
  o.batch_size = bs;
  o.drop_last = drop_last;
  o.collator = pad_collate();
  o.collator_thread_safe = true;
  o.num_workers = workers;
  return o;
}

void expect_same(const Batch& a, const Batch& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (const auto& [k, t] : a) EXPECT_TRUE(t.equal(b.at(k))) << what << " field " << k;
}

}  // namespace

TEST(Prefetch, BatchesEqualThoseWithoutWorkersOverEpochs) {
  auto ds = std::make_shared<ProbeDataset>(103);
  auto sampler = std::make_shared<RandomSampler>(103, 5);
  DataLoader plain(ds, sampler, options(8, 0));
  DataLoader fetched(ds, sampler, options(8, 3));
  ASSERT_FALSE(plain.prefetching());
  ASSERT_TRUE(fetched.prefetching());
  ASSERT_EQ(fetched.num_batches(), 13);
  for (int64_t epoch = 0; epoch < 3; ++epoch) {
    plain.set_epoch(epoch);
    fetched.set_epoch(epoch);
    for (int64_t i = 0; i < fetched.num_batches(); ++i)
      expect_same(fetched.batch(i), plain.batch(i), "epoch " + std::to_string(epoch) + " batch " + std::to_string(i));
  }
  EXPECT_EQ(plain.batch(12).at("labels").size(0), 7);  // the partial last batch
  EXPECT_GT(ds->threads().size(), 1u);                  // workers did read
}

TEST(Prefetch, FastGatherPathAndDropLast) {
  auto ds = std::make_shared<TensorDataset>(Batch{{"x", at::randn({50, 3})}, {"label", at::arange(50, at::kLong)}});
  auto sampler = std::make_shared<RandomSampler>(50, 1);
  LoaderOptions o;
  o.batch_size = 6, o.drop_last = true, o.num_workers = 2, o.prefetch_factor = 1;
  DataLoader fetched(ds, sampler, o);
  o.num_workers = 0;
  DataLoader plain(ds, sampler, o);
  ASSERT_EQ(fetched.num_batches(), 8);
  for (int64_t i = 0; i < 8; ++i) expect_same(fetched.batch(i), plain.batch(i), "batch " + std::to_string(i));
  EXPECT_EQ(fetched.batch(0).count("labels"), 1u);
}

TEST(Prefetch, ResumingAtABatchIndexAndJumping) {
  auto ds = std::make_shared<ProbeDataset>(60);
  auto sampler = std::make_shared<RandomSampler>(60, 2);
  DataLoader plain(ds, sampler, options(4, 0));
  DataLoader fetched(ds, sampler, options(4, 2));
  plain.set_epoch(3);
  fetched.set_epoch(3);
  for (int64_t i = 9; i < 15; ++i) expect_same(fetched.batch(i), plain.batch(i), "resumed batch " + std::to_string(i));
  expect_same(fetched.batch(2), plain.batch(2), "backwards");
  expect_same(fetched.batch(3), plain.batch(3), "then on");
  expect_same(fetched.batch(14), plain.batch(14), "forwards");
  expect_same(fetched.batch(14), plain.batch(14), "the same again");
  EXPECT_THROW(fetched.batch(15), DataError);
}

TEST(Prefetch, WorkerExceptionsReachTheCallerIntact) {
  auto ds = std::make_shared<ProbeDataset>(40, 0, /*fail_at=*/13);
  DataLoader loader(ds, std::make_shared<SequentialSampler>(40), options(4, 3));
  ASSERT_TRUE(loader.prefetching());
  for (int64_t i = 0; i < 3; ++i) EXPECT_NO_THROW(loader.batch(i));
  EXPECT_THAT(data_error([&] { loader.batch(3); }), HasSubstr("probe.jsonl:14: cannot read example 13"));
  EXPECT_EQ(loader.batch(4).at("labels")[0].item<int64_t>(), 16);  // later batches still load
  EXPECT_THAT(data_error([&] { loader.batch(3); }), HasSubstr("cannot read example 13"));
}

TEST(Prefetch, SetEpochDiscardsOutstandingWork) {
  auto ds = std::make_shared<ProbeDataset>(64, /*sleep_us=*/300);
  auto sampler = std::make_shared<RandomSampler>(64, 9);
  DataLoader plain(std::make_shared<ProbeDataset>(64), sampler, options(4, 0));
  DataLoader fetched(ds, sampler, options(4, 2));
  fetched.batch(0);  // workers now build batches 1.. of epoch 0
  fetched.set_epoch(1);
  plain.set_epoch(1);
  for (int64_t i = 0; i < 4; ++i) expect_same(fetched.batch(i), plain.batch(i), "epoch 1 batch " + std::to_string(i));
  fetched.set_epoch(1);  // same epoch: nothing changes
  expect_same(fetched.batch(4), plain.batch(4), "after a repeated set_epoch");
}

TEST(Prefetch, WorkersRunAheadBoundedByThePrefetchFactor) {
  auto ds = std::make_shared<ProbeDataset>(400);
  LoaderOptions o = options(2, 2);
  o.prefetch_factor = 3;
  DataLoader loader(ds, std::make_shared<SequentialSampler>(400), o);
  EXPECT_EQ(ds->reads(), 0);  // nothing is built before the first request
  loader.batch(0);
  for (int k = 0; k < 200 && ds->reads() < 12; ++k) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  // batch 0 plus at most 2 × 3 batches in the window (batches 1..6): 14 examples, never all 400
  EXPECT_GE(ds->reads(), 8);
  EXPECT_LE(ds->reads(), 14);
  EXPECT_TRUE(ds->threads().count(std::this_thread::get_id()) == 0);  // the caller read nothing itself
}

TEST(Prefetch, LuaBackedDatasetsAndCollatorsStayOnTheCaller) {
  auto unsafe = std::make_shared<ProbeDataset>(10, 0, -1, /*safe=*/false);
  DataLoader a(unsafe, std::make_shared<SequentialSampler>(10), options(2, 4));
  EXPECT_FALSE(a.prefetching());
  a.batch(0);
  EXPECT_EQ(unsafe->threads(), std::set<std::thread::id>{std::this_thread::get_id()});
  LoaderOptions o = options(2, 4);
  o.collator_thread_safe = false;
  EXPECT_FALSE(DataLoader(std::make_shared<ProbeDataset>(10), std::make_shared<SequentialSampler>(10), o).prefetching());
  o.collator = {};  // the default collator is thread-safe
  EXPECT_TRUE(DataLoader(std::make_shared<TensorDataset>(Batch{{"x", at::zeros({4, 1})}}), std::make_shared<SequentialSampler>(4), o)
                  .prefetching());
}

TEST(Prefetch, WaitSecondsAccumulates) {
  auto ds = std::make_shared<ProbeDataset>(20, /*sleep_us=*/2000);
  DataLoader plain(ds, std::make_shared<SequentialSampler>(20), options(5, 0));
  EXPECT_EQ(plain.wait_seconds(), 0.0);
  plain.batch(0);
  const double one = plain.wait_seconds();
  EXPECT_GE(one, 0.009);  // 5 examples × 2 ms, built in the caller
  plain.batch(1);
  EXPECT_GT(plain.wait_seconds(), one);

  auto fresh = std::make_shared<ProbeDataset>(20, /*sleep_us=*/2000);
  DataLoader fetched(fresh, std::make_shared<SequentialSampler>(20), options(5, 2));
  fetched.batch(0);
  EXPECT_GE(fetched.wait_seconds(), 0.004);  // the first batch is waited for
  // "Training" while the workers build the remaining batches 1..3 (the window holds 4).
  for (int k = 0; k < 400 && fresh->reads() < 20; ++k) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::this_thread::sleep_for(std::chrono::milliseconds(10));  // the last read's batch is being collated
  ASSERT_EQ(fresh->reads(), 20);
  fetched.batch(1);
  fetched.batch(2);
  // Already built by the workers: taking them reads nothing again (no timing bound, which a
  // busy machine would break).
  EXPECT_EQ(fresh->reads(), 20);
}

TEST(Prefetch, DestroyingOrMovingABusyLoaderIsClean) {
  auto ds = std::make_shared<ProbeDataset>(200, /*sleep_us=*/500);
  {
    DataLoader loader(ds, std::make_shared<SequentialSampler>(200), options(4, 3));
    loader.batch(0);
  }  // joins while workers are mid-batch
  DataLoader a(ds, std::make_shared<SequentialSampler>(200), options(4, 2));
  a.batch(0);
  DataLoader b = std::move(a);
  EXPECT_EQ(b.batch(1).at("labels")[0].item<int64_t>(), 4);
}

TEST(Prefetch, BadOptions) {
  auto ds = std::make_shared<ProbeDataset>(4);
  auto s = std::make_shared<SequentialSampler>(4);
  LoaderOptions o = options(2, -1);
  EXPECT_THAT(data_error([&] { DataLoader(ds, s, o); }), HasSubstr("num_workers must be >= 0"));
  o = options(2, 1);
  o.prefetch_factor = 0;
  EXPECT_THAT(data_error([&] { DataLoader(ds, s, o); }), HasSubstr("prefetch_factor must be >= 1"));
}
