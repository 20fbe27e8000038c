#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "runtime/data/dataloader.h"
#include "runtime/data/sources/text.h"
#include "runtime/data/sources/token_bin.h"
#include "tests/data/data_test_util.h"

using namespace runner;
using namespace runner::data;
using runner::testing::data_error;
using runner::testing::temp_file;
using ::testing::HasSubstr;

namespace {

TextOptions text_options(const std::string& path, int64_t block, const std::string& tokenizer = "chars") {
  TextOptions o;
  o.path = path;
  o.tokenizer = tokenizer;
  o.windows.block_size = block;
  return o;
}

std::vector<int64_t> ids_of(const at::Tensor& t) {
  const at::Tensor c = t.contiguous();
  return std::vector<int64_t>(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}

std::string le_tokens(const std::vector<uint32_t>& ids, int width) {
  std::string s;
  for (uint32_t id : ids)
    for (int b = 0; b < width; ++b) s += static_cast<char>((id >> (8 * b)) & 0xff);
  return s;
}

}  // namespace

TEST(Text, CharVocabularyIsTheSortedCodePointsOfTheWholeFile) {
  const auto path = temp_file("chars.txt", "héllo wörld\n");
  auto ds = load_text(text_options(path, 4));
  // distinct code points sorted: '\n' ' ' d h l o r w é ö
  EXPECT_EQ(ds->vocab_size(), 10);
  EXPECT_EQ(ds->num_tokens(), 12);
  ASSERT_EQ(ds->size(), 3);  // (12 - 4) / 4 + 1 windows, none overlapping
  const Example e = ds->get(0);
  EXPECT_EQ(e.at("input_ids").sizes(), at::IntArrayRef({4}));
  EXPECT_EQ(e.at("input_ids").scalar_type(), at::kLong);
  EXPECT_TRUE(e.at("labels").equal(e.at("input_ids")));  // the model shifts, as HF causal LMs do
  EXPECT_EQ(ds->decode(ids_of(e.at("input_ids"))), "héll");
  EXPECT_EQ(ds->decode(ids_of(ds->get(2).at("input_ids"))), "rld\n");
  EXPECT_EQ(ds->decode(ds->encode("wörd")), "wörd");
  EXPECT_EQ(ds->encode("\n ")[0], 0);
  EXPECT_EQ(ds->encode("\n ")[1], 1);
  EXPECT_THAT(data_error([&] { ds->decode({10}); }), HasSubstr("id 10 is outside the vocabulary (0..9)"));
  EXPECT_THAT(data_error([&] { ds->encode("z"); }), HasSubstr("character 'z' is not in the vocabulary"));
}

TEST(Text, RangesShareTheVocabulary) {
  // The last 10% holds characters the first 90% never uses.
  std::string text(90, 'a');
  text += "bcdefghijk";
  const auto path = temp_file("ranges.txt", text);
  auto train_o = text_options(path, 5), val_o = text_options(path, 5);
  train_o.range_end = 0.9;
  val_o.range_begin = 0.9;
  auto train = load_text(train_o);
  auto val = load_text(val_o);
  EXPECT_EQ(train->vocab_size(), 11);
  EXPECT_EQ(val->vocab_size(), 11);
  EXPECT_EQ(train->num_tokens(), 90);
  EXPECT_EQ(val->num_tokens(), 10);
  EXPECT_EQ(val->decode(ids_of(val->get(0).at("input_ids"))), "bcdef");
  EXPECT_EQ(val->encode("b"), train->encode("b"));
  EXPECT_THAT(val->describe(), HasSubstr("range {0.9, 1}"));
}

TEST(Text, BytesTokenizerReadsAnyEncoding) {
  const auto path = temp_file("latin1.txt", "caf\xe9 au lait");
  auto ds = load_text(text_options(path, 4, "bytes"));
  EXPECT_EQ(ds->vocab_size(), 256);
  EXPECT_EQ(ids_of(ds->get(0).at("input_ids")), (std::vector<int64_t>{'c', 'a', 'f', 0xe9}));
  EXPECT_EQ(ds->decode({'c', 0xe9}), "c\xe9");
}

TEST(Text, NonUtf8WithCharsNamesFileLineAndOffset) {
  const auto path = temp_file("bad.txt", "line one\nline \xff two\n");
  EXPECT_THAT(data_error([&] { load_text(text_options(path, 2)); }), HasSubstr(path + ":2: not valid UTF-8 at byte offset 14"));
  const auto overlong = temp_file("overlong.txt", "ab\xc0\xaf");  // '/' encoded in two bytes
  EXPECT_THAT(data_error([&] { load_text(text_options(overlong, 2)); }), HasSubstr("byte offset 2"));
  const auto cut = temp_file("cut.txt", "abc\xe2\x82");  // a three-byte sequence cut short
  EXPECT_THAT(data_error([&] { load_text(text_options(cut, 2)); }), HasSubstr("byte offset 3"));
  const auto surrogate = temp_file("surrogate.txt", "a\xed\xa0\x80");
  EXPECT_THAT(data_error([&] { load_text(text_options(surrogate, 1)); }), HasSubstr("byte offset 1"));
}

TEST(Text, EmptyFileShortFileAndBadOptions) {
  const auto empty = temp_file("empty.txt", "");
  EXPECT_THAT(data_error([&] { load_text(text_options(empty, 4)); }), HasSubstr(empty + ": empty file"));
  const auto tiny = temp_file("tiny.txt", "abc");
  EXPECT_THAT(data_error([&] { load_text(text_options(tiny, 4)); }), HasSubstr("3 tokens, fewer than one window of block_size 4"));
  EXPECT_THAT(data_error([&] { load_text(text_options(tiny, 0)); }), HasSubstr("block_size must be >= 1"));
  EXPECT_THAT(data_error([&] { load_text(text_options(tiny, 1, "words")); }), HasSubstr("tokenizer must be \"chars\", \"bytes\" or a tokenizer.json file"));
  auto o = text_options(tiny, 1);
  o.range_begin = 0.5, o.range_end = 0.2;
  EXPECT_THAT(data_error([&] { load_text(o); }), HasSubstr("range must be {begin, end} with 0 <= begin < end <= 1"));
  EXPECT_THAT(data_error([] { load_text(text_options("/nonexistent/t.txt", 1)); }), HasSubstr("/nonexistent/t.txt: cannot open"));
}

TEST(Text, StrideAndTheDroppedTail) {
  const auto path = temp_file("stride.txt", "0123456789");
  auto o = text_options(path, 4);
  o.windows.stride = 3;
  auto ds = load_text(o);
  ASSERT_EQ(ds->size(), 3);  // offsets 0, 3, 6; the tail "9" fits no window
  EXPECT_EQ(ds->decode(ids_of(ds->get(1).at("input_ids"))), "3456");
  EXPECT_EQ(ds->decode(ids_of(ds->get(2).at("input_ids"))), "6789");
  o.windows.stride = 0;
  EXPECT_EQ(load_text(o)->size(), 2);  // default stride = block_size: "0123", "4567"
  o.windows.num_samples = 1;
  EXPECT_EQ(load_text(o)->size(), 1);  // num_samples caps in-order windows
  EXPECT_THAT(data_error([&] { ds->get(3); }), HasSubstr("index 3 out of range for 3 examples"));
}

TEST(Text, RandomWindowsAreDeterministicByIndex) {
  std::string text;
  for (int i = 0; i < 500; ++i) text += static_cast<char>('a' + i % 26);
  const auto path = temp_file("random.txt", text);
  auto o = text_options(path, 8);
  o.windows.random_windows = true;
  o.windows.num_samples = 200;
  o.windows.seed = 3;
  auto a = load_text(o), b = load_text(o);
  ASSERT_EQ(a->size(), 200);
  std::set<std::string> distinct;
  for (int64_t i = 199; i >= 0; --i) {  // reading order does not matter
    const auto w = a->decode(ids_of(a->get(i).at("input_ids")));
    EXPECT_EQ(w, b->decode(ids_of(b->get(i).at("input_ids"))));
    // each window is 8 consecutive characters of the text
    EXPECT_NE(text.find(w), std::string::npos);
    distinct.insert(w);
  }
  EXPECT_GT(distinct.size(), 20u);  // 26 possible starting letters
  o.windows.seed = 4;
  auto c = load_text(o);
  int same = 0;
  for (int64_t i = 0; i < 200; ++i) same += a->get(i).at("input_ids").equal(c->get(i).at("input_ids"));
  EXPECT_LT(same, 40);
  o.windows.num_samples = 0;
  EXPECT_EQ(load_text(o)->size(), 500 / 8);  // default: tokens / block_size
}

TEST(Text, GatherMatchesGetAndTheLoader) {
  const auto path = temp_file("gather.txt", "the quick brown fox jumps over the lazy dog");
  auto ds = load_text(text_options(path, 5));
  DataLoader loader(ds, std::make_shared<RandomSampler>(ds->size(), 1), {3, false, {}});
  const Batch batch = loader.batch(1);
  const auto order = RandomSampler(ds->size(), 1).order(0);
  for (int k = 0; k < 3; ++k) EXPECT_TRUE(batch.at("input_ids")[k].equal(ds->get(order[3 + k]).at("input_ids")));
  EXPECT_TRUE(batch.at("labels").equal(batch.at("input_ids")));
}

TEST(TokenBin, Uint16AndUint32LittleEndian) {
  std::vector<uint32_t> ids;
  for (uint32_t i = 0; i < 20; ++i) ids.push_back(i * 3000);
  const auto p16 = temp_file("train16.bin", le_tokens(ids, 2));
  TokenBinOptions o;
  o.path = p16;
  o.windows.block_size = 6;
  auto ds = load_token_bin(o);
  EXPECT_EQ(ds->num_tokens(), 20);
  ASSERT_EQ(ds->size(), 3);
  EXPECT_EQ(ids_of(ds->get(1).at("input_ids")), (std::vector<int64_t>{18000, 21000, 24000, 27000, 30000, 33000}));
  EXPECT_TRUE(ds->get(1).at("labels").equal(ds->get(1).at("input_ids")));

  std::vector<uint32_t> big{70000, 4000000000u, 1, 2};
  o.path = temp_file("train32.bin", le_tokens(big, 4));
  o.dtype = "uint32";
  o.windows.block_size = 2;
  auto ds32 = load_token_bin(o);
  EXPECT_EQ(ids_of(ds32->get(0).at("input_ids")), (std::vector<int64_t>{70000, 4000000000LL}));
}

TEST(TokenBin, RandomWindowsStrideAndGather) {
  std::vector<uint32_t> ids;
  for (uint32_t i = 0; i < 1000; ++i) ids.push_back(i);
  TokenBinOptions o;
  o.path = temp_file("seq.bin", le_tokens(ids, 2));
  o.windows.block_size = 16;
  o.windows.random_windows = true;
  o.windows.num_samples = 50;
  o.windows.seed = 9;
  auto ds = load_token_bin(o);
  ASSERT_EQ(ds->size(), 50);
  for (int64_t i = 0; i < 50; ++i) {
    const auto w = ids_of(ds->get(i).at("input_ids"));
    for (size_t k = 1; k < w.size(); ++k) EXPECT_EQ(w[k], w[0] + static_cast<int64_t>(k));  // consecutive tokens
    EXPECT_LE(w[0], 1000 - 16);
  }
  Batch out;
  ASSERT_TRUE(ds->gather({4, 2}, out));
  EXPECT_TRUE(out.at("input_ids")[0].equal(ds->get(4).at("input_ids")));
  EXPECT_TRUE(out.at("input_ids")[1].equal(ds->get(2).at("input_ids")));

  o.windows.random_windows = false;
  o.windows.num_samples = 0;
  o.windows.stride = 8;
  EXPECT_EQ(load_token_bin(o)->size(), (1000 - 16) / 8 + 1);
}

TEST(TokenBin, Errors) {
  TokenBinOptions o;
  o.windows.block_size = 2;
  o.path = temp_file("empty.bin", "");
  EXPECT_THAT(data_error([&] { load_token_bin(o); }), HasSubstr(o.path + ": empty file"));
  o.path = temp_file("odd.bin", "abc");
  EXPECT_THAT(data_error([&] { load_token_bin(o); }), HasSubstr(o.path + ": 3 bytes is not a whole number of uint16 tokens"));
  o.dtype = "uint32";
  o.path = temp_file("six.bin", "abcdef");
  EXPECT_THAT(data_error([&] { load_token_bin(o); }), HasSubstr("not a whole number of uint32 tokens"));
  o.dtype = "int8";
  EXPECT_THAT(data_error([&] { load_token_bin(o); }), HasSubstr("dtype must be \"uint16\" or \"uint32\""));
  o.dtype = "uint16";
  o.path = temp_file("one.bin", "ab");
  EXPECT_THAT(data_error([&] { load_token_bin(o); }), HasSubstr("1 tokens, fewer than one window of block_size 2"));
  o.path = "/nonexistent/train.bin";
  EXPECT_THAT(data_error([&] { load_token_bin(o); }), HasSubstr("/nonexistent/train.bin: cannot open"));
}
