#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/data/collator.h"
#include "tests/data/data_test_util.h"

using namespace runner;
using namespace runner::data;
using runner::testing::data_error;
using ::testing::HasSubstr;

namespace {
at::Tensor L(std::vector<int64_t> v) { return at::tensor(v, at::kLong); }
at::Tensor rows(std::vector<std::vector<int64_t>> v) {
  std::vector<at::Tensor> r;
  for (auto& x : v) r.push_back(L(x));
  return at::stack(r);
}
}  // namespace

TEST(PadCollate, RightPadsOneDimFieldsAndAddsAMask) {
  std::vector<Example> examples{
      {{"input_ids", L({5, 6, 7})}, {"labels", L({1, 2, 3})}, {"score", at::scalar_tensor(0.5)}},
      {{"input_ids", L({8})}, {"labels", L({4})}, {"score", at::scalar_tensor(1.5)}},
  };
  const Batch b = pad_collate()(examples);
  EXPECT_TRUE(b.at("input_ids").equal(rows({{5, 6, 7}, {8, 0, 0}})));
  EXPECT_TRUE(b.at("labels").equal(rows({{1, 2, 3}, {4, -100, -100}})));  // labels pad with the ignore index
  EXPECT_TRUE(b.at("attention_mask").equal(rows({{1, 1, 1}, {1, 0, 0}})));
  EXPECT_EQ(b.at("attention_mask").scalar_type(), at::kLong);
  EXPECT_EQ(b.at("score").sizes(), at::IntArrayRef({2}));  // scalars are stacked
}

TEST(PadCollate, LeftPaddingForGenerationPutsPadsFirst) {
  std::vector<Example> examples{
      {{"input_ids", L({5, 6, 7})}, {"labels", L({1, 2, 3})}},
      {{"input_ids", L({8})}, {"labels", L({4})}},
  };
  PadOptions o;
  o.pad_left = true;
  o.pad_token_id = 9;
  const Batch b = pad_collate(o)(examples);
  EXPECT_TRUE(b.at("input_ids").equal(rows({{5, 6, 7}, {9, 9, 8}})));
  EXPECT_TRUE(b.at("labels").equal(rows({{1, 2, 3}, {-100, -100, 4}})));
  EXPECT_TRUE(b.at("attention_mask").equal(rows({{1, 1, 1}, {0, 0, 1}})));
}

// transformers' pad_to_multiple_of: the batch's longest (3) rounded up to 4, on either side;
// a batch already at a multiple is not padded further.
TEST(PadCollate, PadToMultipleOfRoundsTheWidthUp) {
  std::vector<Example> examples{{{"input_ids", L({5, 6, 7})}, {"labels", L({1, 2, 3})}}, {{"input_ids", L({8})}, {"labels", L({4})}}};
  PadOptions o;
  o.pad_to_multiple_of = 4;
  Batch b = pad_collate(o)(examples);
  EXPECT_TRUE(b.at("input_ids").equal(rows({{5, 6, 7, 0}, {8, 0, 0, 0}})));
  EXPECT_TRUE(b.at("labels").equal(rows({{1, 2, 3, -100}, {4, -100, -100, -100}})));
  EXPECT_TRUE(b.at("attention_mask").equal(rows({{1, 1, 1, 0}, {1, 0, 0, 0}})));
  o.pad_left = true;
  b = lm_collate(o)({{{"input_ids", L({5, 6, 7})}}, {{"input_ids", L({8})}}});
  EXPECT_TRUE(b.at("input_ids").equal(rows({{0, 5, 6, 7}, {0, 0, 0, 8}})));
  EXPECT_TRUE(b.at("labels").equal(rows({{-100, 5, 6, 7}, {-100, -100, -100, 8}})));
  o.pad_left = false;
  o.pad_to_multiple_of = 3;
  EXPECT_EQ(pad_collate(o)(examples).at("input_ids").size(1), 3);
  // Only the token fields: a multi-label vector the length of neither keeps its width.
  o.pad_to_multiple_of = 4;
  b = pad_collate(o)({{{"input_ids", L({5, 6, 7})}, {"labels", at::ones({2})}}, {{"input_ids", L({8})}, {"labels", at::zeros({2})}}});
  EXPECT_EQ(b.at("input_ids").size(1), 4);
  EXPECT_TRUE(b.at("labels").equal(at::stack({at::ones({2}), at::zeros({2})})));
}

// transformers' tokenizer.pad (DataCollatorWithPadding): token types pad with 0 and the
// special-tokens mask with 1, whatever pad_token_id is (with pad_token_id 3 a BERT's token
// types went out of their range of 2).
TEST(PadCollate, TokenTypesPadWithZeroAndTheSpecialTokensMaskWithOne) {
  std::vector<Example> examples{
      {{"input_ids", L({5, 6, 7})}, {"token_type_ids", L({0, 1, 1})}, {"special_tokens_mask", L({1, 0, 1})}},
      {{"input_ids", L({8})}, {"token_type_ids", L({0})}, {"special_tokens_mask", L({1})}},
  };
  PadOptions o;
  o.pad_token_id = 3;
  const Batch b = pad_collate(o)(examples);
  EXPECT_TRUE(b.at("input_ids").equal(rows({{5, 6, 7}, {8, 3, 3}})));
  EXPECT_TRUE(b.at("token_type_ids").equal(rows({{0, 1, 1}, {0, 0, 0}})));
  EXPECT_TRUE(b.at("special_tokens_mask").equal(rows({{1, 0, 1}, {1, 1, 1}})));
}

TEST(PadCollate, OptionsAndExistingMask) {
  std::vector<Example> examples{
      {{"input_ids", L({5, 6})}, {"attention_mask", L({1, 1})}, {"label", at::scalar_tensor(1, at::kLong)}},
      {{"input_ids", L({8, 9, 10})}, {"attention_mask", L({1, 1, 0})}, {"label", at::scalar_tensor(0, at::kLong)}},
  };
  PadOptions o;
  o.pad_token_id = 50256;
  const Batch b = pad_collate(o)(examples);
  EXPECT_TRUE(b.at("input_ids").equal(rows({{5, 6, 50256}, {8, 9, 10}})));
  EXPECT_TRUE(b.at("attention_mask").equal(rows({{1, 1, 0}, {1, 1, 0}})));  // the examples' own mask, padded with 0
  EXPECT_TRUE(b.at("labels").equal(L({1, 0})));                             // label → labels, stacked
  EXPECT_EQ(b.count("label"), 0u);

  o.attention_mask = false;
  std::vector<Example> plain{{{"input_ids", L({1})}}, {{"input_ids", L({1, 2})}}};
  EXPECT_EQ(pad_collate(o)(plain).count("attention_mask"), 0u);

  // Fixed-size feature vectors are 1-D too: padding them is a no-op and adds no mask.
  std::vector<Example> features{{{"x", at::ones({3})}, {"labels", at::scalar_tensor(1, at::kLong)}},
                                {{"x", at::zeros({3})}, {"labels", at::scalar_tensor(0, at::kLong)}}};
  const Batch fb = pad_collate()(features);
  EXPECT_EQ(fb.count("attention_mask"), 0u);
  EXPECT_EQ(fb.at("x").sizes(), at::IntArrayRef({2, 3}));
}

TEST(PadCollate, ExplicitFieldsPadAlongDimZero) {
  std::vector<Example> examples{
      {{"frames", at::ones({2, 3})}, {"ids", L({1, 2})}},
      {{"frames", at::ones({4, 3})}, {"ids", L({3, 4})}},
  };
  PadOptions o;
  o.fields = std::vector<std::string>{"frames"};
  const Batch b = pad_collate(o)(examples);
  EXPECT_EQ(b.at("frames").sizes(), at::IntArrayRef({2, 4, 3}));
  EXPECT_EQ(b.at("frames")[0].sum().item<float>(), 6.0f);
  EXPECT_TRUE(b.at("attention_mask").equal(rows({{1, 1, 0, 0}, {1, 1, 1, 1}})));  // follows the padded field
  EXPECT_TRUE(b.at("ids").equal(rows({{1, 2}, {3, 4}})));

  o.fields = std::vector<std::string>{"missing"};
  EXPECT_THAT(data_error([&] { pad_collate(o)(examples); }), HasSubstr("no field 'missing' to pad"));
  std::vector<Example> ragged2d{{{"m", at::ones({2, 3})}}, {{"m", at::ones({2, 4})}}};
  o.fields = std::vector<std::string>{"m"};
  EXPECT_THAT(data_error([&] { pad_collate(o)(ragged2d); }), HasSubstr("examples differ beyond the padded dim, [2, 3] and [2, 4]"));
}

TEST(PadCollate, Errors) {
  EXPECT_THAT(data_error([] { pad_collate()({}); }), HasSubstr("empty list of examples"));
  std::vector<Example> missing{{{"input_ids", L({1})}}, {{"x", L({1})}}};
  EXPECT_THAT(data_error([&] { pad_collate()(missing); }), HasSubstr("example 1 has no field 'input_ids'"));
  std::vector<Example> mixed{{{"v", at::ones({2, 2})}}, {{"v", at::ones({3, 2})}}};
  EXPECT_THAT(data_error([&] { pad_collate()(mixed); }), HasSubstr("field 'v': examples have different shapes"));  // 2-D is not padded by default
}

TEST(LmCollate, LabelsAreInputIdsWithPaddingIgnored) {
  // A real token equal to the pad id (GPT-2 pads with eos) keeps its label: masking is by position.
  std::vector<Example> examples{{{"input_ids", L({3, 0, 4})}}, {{"input_ids", L({7})}}};
  const Batch b = lm_collate()(examples);
  EXPECT_TRUE(b.at("input_ids").equal(rows({{3, 0, 4}, {7, 0, 0}})));
  EXPECT_TRUE(b.at("labels").equal(rows({{3, 0, 4}, {7, -100, -100}})));
  EXPECT_TRUE(b.at("attention_mask").equal(rows({{1, 1, 1}, {1, 0, 0}})));
  b.at("labels").fill_(1);
  EXPECT_EQ(b.at("input_ids")[0][0].item<int64_t>(), 3);  // labels do not alias the inputs

  std::vector<Example> with_labels{{{"input_ids", L({3, 4})}, {"labels", L({9, 9})}}, {{"input_ids", L({5})}, {"labels", L({8})}}};
  EXPECT_TRUE(lm_collate()(with_labels).at("labels").equal(rows({{9, 9}, {8, -100}})));  // given labels are kept
  std::vector<Example> no_ids{{{"x", L({1})}}};
  EXPECT_THAT(data_error([&] { lm_collate()(no_ids); }), HasSubstr("no 'input_ids' field"));
}

// transformers' DataCollatorWithFlattening: one row, labels' first token per example the
// separator, positions restarting; given labels are used, other fields dropped.
TEST(FlatteningCollate, ConcatenatesExamplesIntoOneRow) {
  const Batch b = flattening_collate()({{{"input_ids", L({5, 6, 7})}, {"attention_mask", L({1, 1, 1})}},
                                        {{"input_ids", L({8, 9})}, {"labels", L({-100, 4})}}});
  EXPECT_EQ(b.size(), 3u);
  EXPECT_TRUE(b.at("input_ids").equal(rows({{5, 6, 7, 8, 9}})));
  EXPECT_TRUE(b.at("labels").equal(rows({{-100, 6, 7, -100, 4}})));
  EXPECT_TRUE(b.at("position_ids").equal(rows({{0, 1, 2, 0, 1}})));
  EXPECT_TRUE(flattening_collate(-1)({{{"input_ids", L({5, 6})}}}).at("labels").equal(rows({{-1, 6}})));
  EXPECT_THAT(data_error([] { flattening_collate()({{{"input_ids", L({5, 6})}, {"labels", L({1})}}}); }), HasSubstr("1 labels for 2 input_ids"));
  EXPECT_THAT(data_error([] { flattening_collate()({{{"x", L({5})}}}); }), HasSubstr("example 0 has no 'input_ids'"));
}

TEST(Collators, MultipleChoicePadsEachChoiceToTheBatchsLongest) {
  const Example a{{"input_ids", at::ones({2, 3}, at::kLong)}, {"attention_mask", at::ones({2, 3}, at::kLong)}, {"labels", at::scalar_tensor(1, at::kLong)}},
      b{{"input_ids", at::full({2, 5}, 7, at::kLong)}, {"attention_mask", at::ones({2, 5}, at::kLong)}, {"labels", at::scalar_tensor(0, at::kLong)}};
  PadOptions o;
  o.pad_token_id = 9;
  const Batch batch = multiple_choice_collate(o)({a, b});
  EXPECT_EQ(batch.at("input_ids").sizes(), (std::vector<int64_t>{2, 2, 5}));
  EXPECT_TRUE(batch.at("input_ids")[0][1].equal(at::tensor(std::vector<int64_t>{1, 1, 1, 9, 9}, at::kLong)));
  EXPECT_TRUE(batch.at("attention_mask")[0][0].equal(at::tensor(std::vector<int64_t>{1, 1, 1, 0, 0}, at::kLong)));
  EXPECT_TRUE(batch.at("labels").equal(at::tensor(std::vector<int64_t>{1, 0}, at::kLong)));
  o.pad_to_multiple_of = 4, o.pad_left = true;
  const Batch left = multiple_choice_collate(o)({a, b});
  EXPECT_TRUE(left.at("input_ids")[0][0].equal(at::tensor(std::vector<int64_t>{9, 9, 9, 9, 9, 1, 1, 1}, at::kLong)));
  EXPECT_THROW(multiple_choice_collate(o)({a, Example{{"input_ids", at::ones({3, 2}, at::kLong)}, {"labels", at::scalar_tensor(0, at::kLong)}}}), DataError);
}
