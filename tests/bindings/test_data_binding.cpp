#include <gmock/gmock.h>

#include "bindings/lua/data_binding.h"
#include "runtime/data/dataloader.h"
#include "tests/bindings/lua_fixture.h"

using runner::testing::LuaFixture;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using DataBinding = LuaFixture;

namespace {

std::string be32(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
}

}  // namespace

TEST_F(DataBinding, SyntheticRegressionExposesItsLine) {
  EXPECT_EQ(number("local data = require 'runner.data' return #data.synthetic.regression{n = 40, features = 3}"), 40);
  // Without noise, labels = x · wᵀ + b exactly, with w, b from ds:coef().
  EXPECT_LT(number(R"(
    local data = require 'runner.data'
    local ds = data.synthetic.regression{n = 50, features = 2, noise = 0, seed = 3}
    local w, b = ds:coef()
    assert(w:size(0) == 1 and w:size(1) == 2 and b:size(0) == 1)
    local e = ds:get(7)
    return (e.x:matmul(w:t()) + b - e.labels):abs():max():item()
  )"), 1e-5);
  // coef survives views; other datasets have none
  EXPECT_EQ(number("local data = require 'runner.data' local ds = data.synthetic.regression{n = 9} "
                   "local w = ds:shuffle(1):select(0, 3):coef() return w:size(1)"), 1);
  EXPECT_THAT(error_of("local data = require 'runner.data' return data.tensors{x = torch.zeros(2)}:coef()"),
              HasSubstr("is not a data.synthetic.regression dataset"));
  EXPECT_THAT(error_of("local data = require 'runner.data' return data.synthetic.regression{n = 0}"), HasSubstr("n must be >= 1"));
  EXPECT_THAT(error_of("local data = require 'runner.data' return data.synthetic.regression{n = 5, nosie = 1}"),
              HasSubstr("did you mean 'noise'"));
}

TEST_F(DataBinding, SyntheticClassification) {
  run("local data = require 'runner.data' return data.synthetic.classification{n = 30, features = 5, classes = 3, seed = 1}");
  auto ds = runner::lua::test_dataset(L(), -1);
  lua_pop(L(), 1);
  ASSERT_TRUE(ds);
  EXPECT_EQ(ds->size(), 30);
  EXPECT_EQ(ds->get(0).at("x").sizes(), at::IntArrayRef({5}));
  EXPECT_EQ(ds->get(0).at("labels").scalar_type(), at::kLong);
}

TEST_F(DataBinding, IdxFilesRawAndErrorsAtTheRecipeLine) {
  std::string images = be32(0x803) + be32(2) + be32(2) + be32(2) + std::string("\x00\x10\x20\x30\x40\x50\x60\xff", 8);
  const auto img = write("imgs-idx3-ubyte", images);
  const auto lab = write("labels-idx1-ubyte", be32(0x801) + be32(2) + std::string("\x03\x07", 2));
  const auto px = tensor("local data = require 'runner.data' return data.idx{images = '" + img + "', labels = '" + lab +
                         "', flatten = true}:get(1).pixel_values");
  EXPECT_EQ(px.sizes(), at::IntArrayRef({4}));
  EXPECT_FLOAT_EQ(px[3].item<float>(), 1.0f);
  EXPECT_EQ(number("local data = require 'runner.data' return data.idx{images = '" + img + "', labels = '" + lab + "'}:get(1).labels:item()"), 7);
  EXPECT_THAT(error_of("local data = require 'runner.data'\nreturn data.idx{images = '" + lab + "'}"),
              MatchesRegex(".*snippet[0-9]+\\.lua:2: .*labels-idx1-ubyte: wrong magic number 0x00000801.*"));
  EXPECT_THAT(error_of("local data = require 'runner.data' return data.idx{labels = '" + lab + "'}"), HasSubstr("needs images ="));
  EXPECT_THAT(error_of("local data = require 'runner.data' return data.idx{images = '" + img + "', normalize = 'standardise'}"),
              HasSubstr("normalize must be"));
}

// data.csv / data.jsonl take the path alone: an options table (HF's load_dataset("csv",
// delimiter=";")) was read by nobody and the file parsed with commas.
TEST_F(DataBinding, CsvAndJsonlRefuseOptionsTheyDoNotRead) {
  const auto csv = write("d.csv", "x;labels\n1;2\n");
  EXPECT_THAT(error_of("local data = require 'runner.data'\nreturn data.csv('" + csv + "', {delimiter = ';'})"),
              MatchesRegex(".*snippet[0-9]+\\.lua:2: data\\.csv takes one argument, the path .*it has no options.*"));
  EXPECT_THAT(error_of("local data = require 'runner.data' return data.jsonl('" + csv + "', {lines = true})"),
              HasSubstr("data.jsonl takes one argument, the path"));
}

TEST_F(DataBinding, TextWindowsVocabularyAndDecode) {
  const auto path = write("input.txt", "hello world, hello moon\n");
  const std::string open = "local data = require 'runner.data' local ds = data.text{path = '" + path + "', block_size = 5";
  EXPECT_EQ(number(open + "} return ds:vocab_size()"), 12);  // \n space , d e h l m n o r w
  run(open + "} return ds:decode(ds:get(1).input_ids)");
  EXPECT_STREQ(lua_tostring(L(), -1), " worl");
  lua_pop(L(), 1);
  run(open + "} return ds:decode(ds:encode('lower'))");
  EXPECT_STREQ(lua_tostring(L(), -1), "lower");
  lua_pop(L(), 1);
  // range keeps the whole file's vocabulary; views keep decode
  EXPECT_EQ(number(open + ", range = {0.5, 1}} return ds:vocab_size() * 100 + #ds"), 1202);
  run(open + ", random_windows = true, num_samples = 7, seed = 1} return ds:shuffle(2):select{3}:decode(ds:get(0).labels)");
  EXPECT_EQ(std::string(lua_tostring(L(), -1)).size(), 5u);
  lua_pop(L(), 1);
  EXPECT_EQ(number("local data = require 'runner.data' return #data.text('" + path + "', {block_size = 4, stride = 2, tokenizer = 'bytes'})"),
            11);
  EXPECT_THAT(error_of(open + ", range = {0.5}} return ds"), HasSubstr("range must be a pair of fractions"));
  EXPECT_THAT(error_of("local data = require 'runner.data' return data.text{path = '" + path + "'}"), HasSubstr("needs block_size"));
  EXPECT_THAT(error_of("local data = require 'runner.data' return data.tensors{x = torch.zeros(2)}:vocab_size()"),
              HasSubstr("is not a data.text dataset"));
  const auto latin1 = write("latin1.txt", "caf\xe9\n");
  EXPECT_THAT(error_of("local data = require 'runner.data'\n\nreturn data.text{path = '" + latin1 + "', block_size = 2}"),
              MatchesRegex(".*snippet[0-9]+\\.lua:3: .*latin1\\.txt:1: not valid UTF-8 at byte offset 3.*"));
}

TEST_F(DataBinding, TokenBin) {
  std::string bytes;
  for (int i = 0; i < 12; ++i) bytes += std::string{static_cast<char>(i), 1};  // uint16 little-endian: 256·1 + i
  const auto path = write("train.bin", bytes);
  EXPECT_EQ(number("local data = require 'runner.data' local ds = data.token_bin{path = '" + path +
                   "', block_size = 3} return #ds * 10000 + ds:get(1).input_ids:select(0, 0):item()"),
            4 * 10000 + 256 + 3);
  EXPECT_THAT(error_of("local data = require 'runner.data' return data.token_bin{path = '" + path + "', block_size = 3, dtype = 'u16'}"),
              HasSubstr("dtype must be \"uint16\" or \"uint32\""));
}

TEST_F(DataBinding, LuaFunctionDatasets) {
  EXPECT_EQ(number(R"(
    local data = require 'runner.data'
    local ds = data.lua(function(i) return {x = {i, i + 0.5}, labels = i * 2} end, 5)
    local e = ds:get(3)
    assert(#ds == 5 and e.x:dtype() == torch.float32 and e.labels:dtype() == torch.int64)
    return e.labels:item() + e.x:select(0, 1):item()
  )"),
            6 + 3.5);
  run("local data = require 'runner.data' return data.lua(function(i) return {x = torch.tensor{i}} end, 4)");
  auto ds = runner::lua::test_dataset(L(), -1);
  lua_pop(L(), 1);
  ASSERT_TRUE(ds);
  EXPECT_FALSE(ds->thread_safe());  // Lua runs on the main thread only
  // A loader asked for workers builds on the caller instead, and still works.
  runner::data::LoaderOptions o;
  o.batch_size = 3, o.num_workers = 2;
  runner::data::DataLoader loader(ds, std::make_shared<runner::data::SequentialSampler>(4), o);
  EXPECT_FALSE(loader.prefetching());
  EXPECT_TRUE(loader.batch(1).at("x").equal(at::tensor({3}, at::kLong).view({1, 1})));
  // errors name the recipe line, both inside the function and about its result
  EXPECT_THAT(error_of("local data = require 'runner.data'\nlocal ds = data.lua(function(i)\n  error('no example ' .. i)\nend, 3)"),
              MatchesRegex(".*snippet[0-9]+\\.lua:3: no example 0.*"));
  EXPECT_THAT(error_of("local data = require 'runner.data'\nreturn data.lua(function(i) return 5 end, 2)"),
              MatchesRegex(".*snippet[0-9]+\\.lua:2: data.lua function must return a table of fields, got number.*"));
  EXPECT_THAT(error_of("local data = require 'runner.data' return data.lua(function(i) return {t = 'text'} end, 2)"),
              HasSubstr("field 't' is a string"));
  EXPECT_THAT(error_of("local data = require 'runner.data' return data.lua(5, 2)"), HasSubstr("expected a function of the index"));
  // an error past the first 16 examples (read to learn the dtypes) surfaces when that example is read
  run("local data = require 'runner.data'\nreturn data.lua(function(i)\n  if i == 20 then error('bad two') end\n  return {x = i} end, 21)");
  auto lazy = runner::lua::test_dataset(L(), -1);
  lua_pop(L(), 1);
  try {
    lazy->get(20);
    FAIL() << "expected an error";
  } catch (const runner::DataError& e) {
    EXPECT_THAT(e.what(), MatchesRegex(".*snippet[0-9]+\\.lua:3: bad two"));
  }
}

// Lua has one number type: a field's dtype is learned from the first 16 examples (fractional
// in any: float32; whole numbers there are floats), and a float where int64 was learned is an
// error naming the field and the fix, not a batch of another dtype failing in the model.
TEST_F(DataBinding, AFieldKeepsItsDtypeAcrossExamples) {
  EXPECT_EQ(number(R"(local data = require 'runner.data'
    local ds = data.lua(function(i) return {x = {i / 2}, labels = i} end, 40)
    for i = 0, 39 do assert(ds:get(i).x:dtype() == torch.float32 and ds:get(i).labels:dtype() == torch.int64) end
    return ds:get(2).x:item())"),
            1.0);
  run("local data = require 'runner.data' return data.lua(function(i) return {x = {i < 20 and i or i + 0.5}} end, 30)");
  auto ds = runner::lua::test_dataset(L(), -1);
  lua_pop(L(), 1);
  EXPECT_EQ(ds->get(19).at("x").scalar_type(), at::kLong);
  try {
    ds->get(25);
    FAIL() << "expected an error";
  } catch (const runner::DataError& e) {
    EXPECT_THAT(e.what(), HasSubstr("field 'x' is float32 here but int64 in the first 16 examples"));
    EXPECT_THAT(e.what(), HasSubstr("{dtype = torch.float32}"));
  }
  // map's fields likewise; a dtype asked for is kept
  EXPECT_EQ(number(R"(local data = require 'runner.data'
    local ds = data.tensors{x = torch.arange(4)}:map(function(e, i) return {y = {i / 2}} end)
    return (ds:get(2).y:dtype() == torch.float32 and ds:get(0).y:dtype() == torch.float32) and 1 or 0)"),
            1);
  EXPECT_EQ(number(R"(local data = require 'runner.data'
    local ds = data.tensors{x = torch.arange(4)}:map(function(e, i) return {y = torch.tensor({i}, {dtype = torch.float64})} end)
    return ds:get(2).y:dtype() == torch.float64 and 1 or 0)"),
            1);
  EXPECT_THAT(error_of("local data = require 'runner.data' local ds = data.tensors{x = torch.arange(4)}"
                       ":map(function(e, i) return {y = i == 0 and {true} or {i}} end)"),
              HasSubstr("field 'y' is int64 here but bool"));
}

TEST_F(DataBinding, MapFilterShuffleSelectSplit) {
  const std::string open = "local data = require 'runner.data' local ds = data.tensors{x = torch.arange(10):float(), labels = torch.arange(10)} ";
  // map merges the returned fields into the example (HF); remove_columns drops input fields
  EXPECT_EQ(number(open + "local m = ds:map(function(e, i) return {y = e.x * 2, i = i} end) "
                          "local e = m:get(4) return e.y:item() + e.i:item() * 100 + e.x:item() * 1000"),
            8 + 400 + 4000);
  EXPECT_EQ(number(open + "local m = ds:map(function(e) return {y = e.x} end, {remove_columns = {'x'}}) return #m:fields()"), 2);
  EXPECT_THAT(error_of(open + "return ds:map(function(e) return {} end, {remove_columns = {'z'}})"),
              HasSubstr("remove_columns names 'z'"));
  EXPECT_THAT(error_of(open + "\nreturn ds:map(function(e)\n  return e.nope.x\nend)"),
              MatchesRegex(".*snippet[0-9]+\\.lua:3: attempt to index.*"));
  // filter is eager and passes the index too
  EXPECT_EQ(number(open + "local f = ds:filter(function(e, i) return e.labels:item() % 2 == 0 and i > 2 end) "
                          "return #f * 100 + f:get(0).labels:item()"),
            3 * 100 + 4);
  // shuffle is seeded, select takes (start, stop), {start =, stop =} or a list of 0-based indices
  EXPECT_EQ(number(open + "local a, b = ds:shuffle(3), ds:shuffle{seed = 3} "
                          "for i = 0, 9 do assert(a:get(i).labels:item() == b:get(i).labels:item()) end return #a"),
            10);
  EXPECT_EQ(number(open + "local s = ds:select(2, 5) return #s * 100 + s:get(0).labels:item()"), 302);
  EXPECT_EQ(number(open + "local s = ds:select{start = 7, stop = 10} return #s * 100 + s:get(2).labels:item()"), 309);
  EXPECT_EQ(number(open + "local s = ds:select{9, 0, 9} return #s * 100 + s:get(0).labels:item() * 10 + s:get(1).labels:item()"), 390);
  EXPECT_EQ(number(open + "return #ds:select(torch.tensor{1, 2}) + #ds:select{}"), 2);
  EXPECT_THAT(error_of(open + "return ds:select{10}"), HasSubstr("index 10 out of range for 10 examples"));
  EXPECT_THAT(error_of(open + "return ds:select(3)"), HasSubstr("a range needs start and stop"));
  EXPECT_THAT(error_of(open + "return ds:select{start = 1, stpo = 3}"), HasSubstr("needs start and stop"));
  // train_test_split returns {train =, test =}
  EXPECT_EQ(number(open + "local s = ds:train_test_split{test_size = 0.2, seed = 1} return #s.train * 100 + #s.test"), 802);
  EXPECT_EQ(number(open + "local s = ds:train_test_split{test_size = 3, shuffle = false} return s.test:get(0).labels:item()"), 7);
  EXPECT_THAT(error_of(open + "return ds:train_test_split{test_size = 10}"), HasSubstr("leaves no training examples"));
}

TEST_F(DataBinding, CollatorsAreCallableAndHandedToRecipes) {
  const auto ids = tensor(R"(
    local data = require 'runner.data'
    local c = data.pad_collator{pad_token_id = 9}
    local b = c{{input_ids = torch.tensor{1, 2, 3}, labels = torch.tensor{1, 2, 3}}, {input_ids = torch.tensor{4}, labels = torch.tensor{4}}}
    assert(b.labels:select(0, 1):select(0, 1):item() == -100 and b.attention_mask:select(0, 1):select(0, 1):item() == 0)
    return b.input_ids
  )");
  EXPECT_TRUE(ids.equal(at::tensor({1, 2, 3, 4, 9, 9}, at::kLong).view({2, 3})));
  const auto labels = tensor(R"(
    local data = require 'runner.data'
    local c = data.lm_collator{}
    return c{{input_ids = torch.tensor{5, 6}}, {input_ids = torch.tensor{7}}}.labels
  )");
  EXPECT_TRUE(labels.equal(at::tensor({5, 6, 7, -100}, at::kLong).view({2, 2})));

  run("local data = require 'runner.data' return data.pad_collator{fields = {'input_ids'}, attention_mask = false}");
  auto spec = runner::lua::test_collator(L(), -1);
  ASSERT_TRUE(spec.has_value());
  EXPECT_TRUE(spec->thread_safe);  // built-in collators may run on prefetch workers
  EXPECT_EQ(spec->name, "data.pad_collator");
  lua_getglobal(L(), "tostring");
  lua_pushvalue(L(), -2);
  lua_call(L(), 1, 1);
  EXPECT_STREQ(lua_tostring(L(), -1), "Collator(data.pad_collator)");
  lua_pop(L(), 2);
  const auto batch = spec->collate({{{"input_ids", at::tensor({1, 2}, at::kLong)}}, {{"input_ids", at::tensor({3}, at::kLong)}}});
  EXPECT_EQ(batch.count("attention_mask"), 0u);
  lua_pushnumber(L(), 1);
  EXPECT_FALSE(runner::lua::test_collator(L(), -1).has_value());
  lua_pop(L(), 1);

  EXPECT_THAT(error_of("local data = require 'runner.data' return data.pad_collator{pad_tokn_id = 1}"), HasSubstr("did you mean 'pad_token_id'"));
  EXPECT_THAT(error_of("local data = require 'runner.data' return data.pad_collator{fields = 'input_ids'}"),
              HasSubstr("fields must be a list of field names"));
  EXPECT_THAT(error_of("local data = require 'runner.data'\nlocal c = data.pad_collator{}\nreturn c{{x = torch.zeros(2, 2)}, {x = torch.zeros(3, 2)}}"),
              MatchesRegex(".*snippet[0-9]+\\.lua:3: field 'x': examples have different shapes.*"));
  EXPECT_THAT(error_of("local data = require 'runner.data' return data.lm_collator{}{{x = torch.tensor{1}}}"), HasSubstr("no 'input_ids' field"));
}
