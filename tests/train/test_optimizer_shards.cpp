// Per-rank optimizer files: pieces written by any partition reassemble into the full flat
// state and the full weights, and a missing or incomplete shard is a clear error.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "runtime/core/errors.h"
#include "runtime/dist/partition.h"
#include "runtime/train/optimizer_shards.h"

namespace runner::train {
namespace {

namespace fs = std::filesystem;

struct ShardFixture : ::testing::Test {
  void SetUp() override {
    dir = (fs::temp_directory_path() / ("runner_shards_" + std::to_string(::getpid()))).string();
    fs::remove_all(dir);
    fs::create_directories(dir);
    params = {{"a.weight", at::randn({3, 5})}, {"a.bias", at::randn({5})}, {"b.weight", at::randn({4, 2})}};
    layout = std::make_unique<optim::FlatParams>(params, std::vector<int>{0, 1, 0}, 2);
    exp_avg = at::randn({layout->numel()});
  }
  void TearDown() override { fs::remove_all(dir); }

  // Saves the flat state as `world` ranks of a ZeRO-1/2 partition would.
  void save(int world) {
    for (int r = 0; r < world; ++r) {
      const dist::Partition p = dist::make_partition(layout->numel(), world, r);
      std::vector<dist::OwnedRange> owned{{p.begin(), p.size(), 0}};
      save_optimizer_shard(dir + "/" + shard_file_name(r, world), *layout, owned,
                           {{"exp_avg", exp_avg.narrow(0, p.begin(), p.size())}, {"param", layout->data().narrow(0, p.begin(), p.size())}});
    }
  }

  std::string dir;
  std::vector<std::pair<std::string, at::Tensor>> params;
  std::unique_ptr<optim::FlatParams> layout;
  at::Tensor exp_avg;
};

TEST_F(ShardFixture, AnyPartitionReassemblesTheFlatStateAndTheWeights) {
  for (int world : {1, 2, 3, 5}) {
    save(world);
    auto state = load_optimizer_shards(dir, world, *layout, {"exp_avg"});
    EXPECT_TRUE(at::equal(state.at("exp_avg"), exp_avg)) << world << " ranks";
    const io::NamedTensors weights = consolidate_param_shards(dir, world);
    ASSERT_EQ(weights.size(), params.size());
    for (const auto& [name, value] : params) {  // in flat (group) order; match by name
      auto it = std::find_if(weights.begin(), weights.end(), [&](const auto& w) { return w.first == name; });
      ASSERT_NE(it, weights.end()) << name;
      EXPECT_TRUE(at::equal(it->second, value)) << name;
    }
  }
}

TEST_F(ShardFixture, EachRankReadsOnlyTheValuesItOwns) {
  save(2);
  for (int world : {1, 2, 3}) {  // a ZeRO-1/2 partition on another world size
    for (int r = 0; r < world; ++r) {
      const dist::Partition p = dist::make_partition(layout->numel(), world, r);
      std::map<std::string, at::Tensor> local{{"exp_avg", at::full({p.shard}, 7.0)}};
      load_owned_optimizer_shards(dir, 2, *layout, {{p.begin(), p.size(), 0}}, local);
      EXPECT_TRUE(at::equal(local["exp_avg"].narrow(0, 0, p.size()), exp_avg.narrow(0, p.begin(), p.size()))) << r << " of " << world;
      EXPECT_TRUE((local["exp_avg"].narrow(0, p.size(), p.shard - p.size()) == 7.0).all().item<bool>()) << "padding kept";
    }
  }
  // Scattered ranges (ZeRO-3's per-unit chunks) land at their local offsets.
  std::map<std::string, at::Tensor> local{{"exp_avg", at::zeros({6})}};
  load_owned_optimizer_shards(dir, 2, *layout, {{20, 2, 4}, {1, 4, 0}}, local);
  EXPECT_TRUE(at::equal(local["exp_avg"], at::cat({exp_avg.narrow(0, 1, 4), exp_avg.narrow(0, 20, 2)})));
  // Ranges beyond what the files hold are an error, not zeros.
  std::map<std::string, at::Tensor> beyond{{"exp_avg", at::zeros({4})}};
  EXPECT_THROW(load_owned_optimizer_shards(dir, 2, *layout, {{layout->numel() - 2, 4, 0}}, beyond), CheckpointError);
}

TEST_F(ShardFixture, MissingOrIncompleteShardsAreNamed) {
  save(2);
  fs::remove(dir + "/" + shard_file_name(1, 2));
  try {
    load_optimizer_shards(dir, 2, *layout, {"exp_avg"});
    FAIL() << "no error";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("optimizer.rank-1-of-2.safetensors"), std::string::npos) << e.what();
  }
  // Rank 0's file alone, declared as a world of one: the pieces do not cover the state.
  fs::rename(dir + "/" + shard_file_name(0, 2), dir + "/" + shard_file_name(0, 1));
  try {
    load_optimizer_shards(dir, 1, *layout, {"exp_avg"});
    FAIL() << "no error";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("values of 'exp_avg."), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace runner::train
