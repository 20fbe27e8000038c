// mlm_collate: transformers' DataCollatorForLanguageModeling(mlm=True) semantics (who may be
// picked, what labels and inputs become, the 80/10/10 split), and runner's addition: each
// example's masks depend on (seed, epoch, dataset index) only, so workers, batch sizes and
// resumes give the same batches.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/core/errors.h"
#include "runtime/data/dataloader.h"
#include "runtime/data/mlm_collator.h"

using namespace runner;
using namespace runner::data;
using ::testing::HasSubstr;

namespace {

constexpr int64_t kVocab = 1000, kMask = 4, kPad = 0;

// [CLS]=2 ... [SEP]=3 around ordinary ids in [10, kVocab); lengths vary so padding appears.
std::vector<Example> examples(int64_t n, int64_t len, int64_t first = 0) {
  std::vector<Example> out;
  for (int64_t i = first; i < first + n; ++i) {
    const int64_t l = len - (i % 7);
    at::Tensor ids = at::randint(10, kVocab, {l}, at::kLong);
    ids[0] = 2;
    ids[l - 1] = 3;
    out.push_back({{"input_ids", ids}});
  }
  return out;
}

MlmOptions options() {
  MlmOptions o;
  o.pad.pad_token_id = kPad;
  o.mask_token_id = kMask;
  o.vocab_size = kVocab;
  o.special_ids = {0, 1, 2, 3, 4};
  return o;
}

BatchOrigin origin(int64_t first, int64_t n, int64_t epoch = 0, uint64_t seed = 42) {
  BatchOrigin b{seed, epoch, {}};
  for (int64_t i = first; i < first + n; ++i) b.indices.push_back(i);
  return b;
}

}  // namespace

TEST(MlmCollator, PicksFifteenPercentOfRealTokensAndSplitsThemEightyTenTen) {
  at::manual_seed(0);
  const auto ex = examples(64, 512);
  const Batch b = mlm_collate(options())(ex, origin(0, 64));
  const at::Tensor padded = pad_collate()(ex).at("input_ids");
  const at::Tensor in = b.at("input_ids"), labels = b.at("labels"), mask = b.at("attention_mask");
  ASSERT_TRUE(labels.sizes().equals(padded.sizes()));
  const at::Tensor picked = labels.ne(-100);
  const at::Tensor real = mask.eq(1) & padded.ge(10);  // neither padding nor [CLS]/[SEP]
  // Picked only among real ordinary tokens; their labels are the original ids.
  EXPECT_EQ((picked & ~real).sum().item<int64_t>(), 0);
  EXPECT_TRUE(labels.masked_select(picked).equal(padded.masked_select(picked)));
  // Unpicked inputs are unchanged.
  EXPECT_TRUE(in.masked_select(~picked).equal(padded.masked_select(~picked)));
  const double n_real = real.sum().item<double>(), n_picked = picked.sum().item<double>();
  EXPECT_NEAR(n_picked / n_real, 0.15, 0.01);
  const double masked = (picked & in.eq(kMask)).sum().item<double>() / n_picked;
  const double kept = (picked & in.eq(padded)).sum().item<double>() / n_picked;
  EXPECT_NEAR(masked, 0.8, 0.02);
  EXPECT_NEAR(kept, 0.1, 0.02);
  EXPECT_NEAR(1 - masked - kept, 0.1, 0.02);  // random ids (one equal to the original counts as kept: 1 in 1000)
  // The random replacements come from the whole vocabulary, not only the ids in the batch.
  const at::Tensor random = picked & in.ne(kMask) & in.ne(padded);
  EXPECT_LT(in.masked_select(random).min().item<int64_t>(), 10 + 50);
}

TEST(MlmCollator, MasksAreAFunctionOfSeedEpochAndIndex) {
  at::manual_seed(1);
  const auto ex = examples(8, 40);
  const Collator c = mlm_collate(options());
  const Batch whole = c(ex, origin(100, 8));
  // The same examples in two batches (another batch size, another worker): the same rows.
  const Batch front = c({ex.begin(), ex.begin() + 3}, origin(100, 3));
  const Batch back = c({ex.begin() + 3, ex.end()}, origin(103, 5));
  EXPECT_TRUE(whole.at("labels").slice(0, 0, 3).slice(1, 0, front.at("labels").size(1)).equal(front.at("labels")));
  EXPECT_TRUE(whole.at("input_ids").slice(0, 3, 8).equal(back.at("input_ids")));  // the longest example is in both
  EXPECT_TRUE(c(ex, origin(100, 8)).at("input_ids").equal(whole.at("input_ids")));
  // Another epoch, another index or another seed: other masks.
  EXPECT_FALSE(c(ex, origin(100, 8, /*epoch=*/1)).at("labels").equal(whole.at("labels")));
  EXPECT_FALSE(c(ex, origin(200, 8)).at("labels").equal(whole.at("labels")));
  EXPECT_FALSE(c(ex, origin(100, 8, 0, /*seed=*/7)).at("labels").equal(whole.at("labels")));
  // The collator's own seed wins over the run's.
  MlmOptions seeded = options();
  seeded.seed = 5;
  EXPECT_TRUE(mlm_collate(seeded)(ex, origin(100, 8, 0, 1)).at("labels").equal(mlm_collate(seeded)(ex, origin(100, 8, 0, 2)).at("labels")));
}

// With left padding a token's draws follow its place in its own example: batched beside a
// longer example it is masked as alone.
TEST(MlmCollator, LeftPaddingDoesNotMoveTheMasks) {
  MlmOptions o = options();
  o.pad.pad_left = true;
  o.mlm_probability = 0.5;
  const Example shorter{{"input_ids", at::arange(10, 30, at::kLong)}}, longer{{"input_ids", at::arange(10, 60, at::kLong)}};
  const at::Tensor alone = mlm_collate(o)({shorter}, origin(7, 1)).at("labels")[0];
  const at::Tensor beside = mlm_collate(o)({shorter, longer}, BatchOrigin{42, 0, {7, 8}}).at("labels")[0];
  EXPECT_TRUE(beside.slice(0, 30).equal(alone));
  EXPECT_GT(alone.ne(-100).sum().item<int64_t>(), 0);
}

TEST(MlmCollator, HonoursSpecialTokensMaskAndDropsIt) {
  const at::Tensor ids = at::arange(10, 210, at::kLong);
  at::Tensor special = at::zeros({200}, at::kLong);
  special.slice(0, 0, 100).fill_(1);  // the first half says special
  MlmOptions o = options();
  o.mlm_probability = 1.0;
  const Batch b = mlm_collate(o)({{{"input_ids", ids}, {"special_tokens_mask", special}}}, origin(0, 1));
  EXPECT_EQ(b.count("special_tokens_mask"), 0u);
  const at::Tensor picked = b.at("labels")[0].ne(-100);
  EXPECT_EQ(picked.slice(0, 0, 100).sum().item<int64_t>(), 0);
  EXPECT_EQ(picked.slice(0, 100, 200).sum().item<int64_t>(), 100);
  // Given labels are replaced (transformers overwrites them), no mask is added when asked not to.
  o.pad.attention_mask = false;
  const Batch c = mlm_collate(o)({{{"input_ids", ids}, {"labels", ids}}, {{"input_ids", ids.slice(0, 0, 5)}, {"labels", ids.slice(0, 0, 5)}}}, origin(0, 2));
  EXPECT_EQ(c.count("attention_mask"), 0u);
  EXPECT_EQ(c.at("labels")[1].slice(0, 5).ne(-100).sum().item<int64_t>(), 0);  // padding is never picked
  EXPECT_EQ(c.at("labels")[1].slice(0, 0, 5).ne(-100).sum().item<int64_t>(), 5);
}

TEST(MlmCollator, WholeWordMaskPicksWordsByTheirFirstTokenAndDropsTheOffsets) {
  // [CLS] a ##b c ##d ##e [SEP] ... repeated: words are the runs of tokens whose offsets touch.
  std::vector<Example> ex;
  for (int64_t i = 0; i < 400; ++i) {
    ex.push_back({{"input_ids", at::tensor(std::vector<int64_t>{2, 11, 12, 13, 14, 15, 3}, at::kLong)},
                  {"offset_mapping", at::tensor(std::vector<int64_t>{0, 0, 0, 1, 1, 2, 3, 4, 4, 5, 5, 6, 0, 0}, at::kLong).view({7, 2})}});
  }
  MlmOptions o = options();
  o.whole_word_mask = true;
  o.mlm_probability = 0.4;
  const Batch b = mlm_collate(o)(ex, origin(0, 400));
  EXPECT_EQ(b.count("offset_mapping"), 0u);
  const at::Tensor picked = b.at("labels").ne(-100);
  int64_t words = 0;
  for (int64_t r = 0; r < 400; ++r) {
    const at::Tensor p = picked[r];
    EXPECT_FALSE(p[0].item<bool>() || p[6].item<bool>());  // special tokens
    EXPECT_TRUE(p[1].item<bool>() == p[2].item<bool>());    // "a ##b" whole
    EXPECT_TRUE(p[3].item<bool>() == p[4].item<bool>() && p[4].item<bool>() == p[5].item<bool>());
    words += p[1].item<int64_t>() + p[3].item<int64_t>();
  }
  EXPECT_NEAR(static_cast<double>(words) / 800.0, 0.4, 0.06);  // words, not tokens, are picked at mlm_probability
  // Without offsets whole-word masking cannot tell words apart: one line.
  EXPECT_THROW(mlm_collate(o)({{{"input_ids", at::arange(10, 20, at::kLong)}}}, origin(0, 1)), DataError);
}

TEST(MlmCollator, LeftPaddingStartsAtTheExampleEvenWithZerosInItsOwnMask) {
  MlmOptions o = options();
  o.pad.pad_left = true;
  o.mlm_probability = 1.0;
  at::Tensor own = at::ones({20}, at::kLong);
  own.slice(0, 10, 15).zero_();  // the example's own attention_mask hides five tokens inside it
  const Example e{{"input_ids", at::arange(10, 30, at::kLong)}, {"attention_mask", own}},
      longer{{"input_ids", at::arange(10, 60, at::kLong)}, {"attention_mask", at::ones({50}, at::kLong)}};
  const at::Tensor picked = mlm_collate(o)({e, longer}, BatchOrigin{42, 0, {7, 8}}).at("labels")[0].slice(0, 30).ne(-100);
  EXPECT_TRUE(picked.equal(own.to(at::kBool)));  // every visible token, none of the hidden ones
}

TEST(MlmCollator, SpecialTokensMaskOfAnotherLengthIsAnError) {
  const Example e{{"input_ids", at::arange(10, 30, at::kLong)}, {"special_tokens_mask", at::zeros({5}, at::kLong)}};
  EXPECT_THROW(mlm_collate(options())({e}, origin(0, 1)), DataError);
}

TEST(MlmCollator, RefusesBadOptions) {
  auto error = [](MlmOptions o) {
    try {
      mlm_collate(std::move(o));
    } catch (const ArgumentError& e) {
      return e.message();
    }
    return std::string("no error");
  };
  MlmOptions o = options();
  o.mlm_probability = 1.5;
  EXPECT_THAT(error(o), HasSubstr("mlm_probability must be in [0, 1]"));
  o = options();
  o.mask_replace_prob = 0.95;
  EXPECT_THAT(error(o), HasSubstr("mask_replace_prob + random_replace_prob must be <= 1"));
  o = options();
  o.mask_token_id = -1;
  EXPECT_THAT(error(o), HasSubstr("needs a mask token"));
  o = options();
  o.mask_token_id = kVocab;
  EXPECT_THAT(error(o), HasSubstr("outside the vocabulary"));
}

// Through the DataLoader: a shuffled epoch read with 3 workers and batch 5 gives each example
// the masks it gets with batch 8, and in another order (a sequential sampler, as another
// world size's shards would deal it): the key is the example's dataset index, not its place
// in the batch or the epoch; two ranks' shards give it the same masks too. The next epoch
// gives it new ones.
TEST(MlmCollator, DataLoaderPassesEpochAndDatasetIndices) {
  at::manual_seed(2);
  auto ex = examples(40, 24);
  auto ds = std::make_shared<ExampleListDataset>(ex);
  const auto shuffled = std::make_shared<RandomSampler>(40, 3);
  std::shared_ptr<const Sampler> sampler;
  auto per_example = [&](int64_t bs, int64_t workers, int64_t epoch) {
    LoaderOptions o;
    o.batch_size = bs;
    o.collator = mlm_collate(options());
    o.collator_thread_safe = true;
    o.num_workers = workers;
    o.seed = 42;
    DataLoader loader(ds, sampler, o);
    loader.set_epoch(epoch);
    const std::vector<int64_t> order = sampler->order(epoch);
    std::map<int64_t, at::Tensor> rows;
    size_t k = 0;
    for (int64_t i = 0; i < loader.num_batches(); ++i) {
      const Batch b = loader.batch(i);
      for (int64_t r = 0; r < b.at("labels").size(0); ++r) {
        const int64_t index = order[k++];
        rows[index] = b.at("labels")[r].slice(0, 0, ex[static_cast<size_t>(index)].at("input_ids").size(0));
      }
    }
    return rows;
  };
  sampler = shuffled;
  const auto a = per_example(5, 3, 0), b = per_example(8, 0, 0), c = per_example(8, 0, 1);
  sampler = std::make_shared<SequentialSampler>(40);
  const auto in_order = per_example(8, 0, 0);
  // Two ranks, each reading its share of the shuffled order (as a 2-process run deals it).
  std::map<int64_t, at::Tensor> ranks;
  for (int64_t rank = 0; rank < 2; ++rank) {
    sampler = std::make_shared<ShardedSampler>(shuffled, 4, rank, 2, false);
    const auto part = per_example(4, 0, 0);
    ranks.insert(part.begin(), part.end());
  }
  ASSERT_EQ(ranks.size(), 40u);
  ASSERT_EQ(a.size(), 40u);
  int64_t differ = 0;
  for (const auto& [i, labels] : a) {
    EXPECT_TRUE(labels.equal(b.at(i))) << "example " << i;
    EXPECT_TRUE(labels.equal(in_order.at(i))) << "example " << i;
    EXPECT_TRUE(labels.equal(ranks.at(i))) << "example " << i;
    differ += labels.equal(c.at(i)) ? 0 : 1;
  }
  EXPECT_GT(differ, 30);
}
