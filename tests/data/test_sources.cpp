#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "runtime/core/errors.h"
#include "runtime/data/sources/sources.h"

using namespace runner;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

namespace {
std::string file_with(const std::string& name, const std::string& text) {
  auto dir = fs::temp_directory_path() / ("runner_sources_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const auto path = (dir / name).string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}
template <class F>
std::string data_error(F f) {
  try {
    f();
  } catch (const DataError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(Jsonl, TypesPerFieldOverTheWholeFile) {
  auto ds = data::load_jsonl(file_with("a.jsonl", "{\"x\": [1, 2], \"labels\": 1}\n\n{\"x\": [0.5, 3], \"labels\": 0}\n"));
  ASSERT_EQ(ds->size(), 2);
  auto e = ds->get(0);
  EXPECT_EQ(e.at("x").scalar_type(), at::kFloat);  // 0.5 in row 2 makes the whole field float
  EXPECT_EQ(e.at("labels").scalar_type(), at::kLong);
  EXPECT_TRUE(e.at("x").equal(at::tensor({1.0f, 2.0f})));
}

TEST(Jsonl, VariableLengthFieldsStayPerExample) {
  auto ds = data::load_jsonl(file_with("v.jsonl", "{\"ids\": [1, 2, 3]}\n{\"ids\": [4]}\n"));
  EXPECT_EQ(ds->get(0).at("ids").size(0), 3);
  EXPECT_EQ(ds->get(1).at("ids").size(0), 1);
}

TEST(Jsonl, ErrorsNameFileAndLine) {
  EXPECT_THAT(data_error([] { data::load_jsonl("/nonexistent/x.jsonl"); }), HasSubstr("/nonexistent/x.jsonl: cannot open: No such file"));
  const auto empty = file_with("empty.jsonl", "");
  EXPECT_THAT(data_error([&] { data::load_jsonl(empty); }), HasSubstr(empty + ": no examples"));
  const auto bad = file_with("bad.jsonl", "{\"x\": 1}\n{\"x\": \n");
  EXPECT_THAT(data_error([&] { data::load_jsonl(bad); }), HasSubstr(bad + ":2: not valid JSON"));
  const auto text = file_with("text.jsonl", "{\"x\": 1, \"t\": \"hello\"}\n");
  EXPECT_THAT(data_error([&] { data::load_jsonl(text); }), HasSubstr("field 't' holds text"));
  const auto ragged = file_with("ragged.jsonl", "{\"x\": [[1, 2], [3]]}\n");
  EXPECT_THAT(data_error([&] { data::load_jsonl(ragged); }), HasSubstr("ragged"));
  const auto non_utf8 = file_with("latin1.jsonl", "{\"x\": 1, \"t\": \"caf\xe9\"}\n");
  EXPECT_THAT(data_error([&] { data::load_jsonl(non_utf8); }), HasSubstr(non_utf8 + ":1: not valid JSON"));
}

TEST(Csv, NumericColumnsWithQuotes) {
  auto ds = data::load_csv(file_with("a.csv", "x,\"y\",labels\n1.5,2,0\n\"3\",4,1\n"));
  ASSERT_EQ(ds->size(), 2);
  EXPECT_EQ(ds->get(0).at("x").scalar_type(), at::kFloat);
  EXPECT_EQ(ds->get(0).at("y").scalar_type(), at::kLong);
  EXPECT_FLOAT_EQ(ds->get(1).at("x").item<float>(), 3.0f);
}

TEST(Csv, Errors) {
  const auto short_row = file_with("s.csv", "a,b\n1,2\n3\n");
  EXPECT_THAT(data_error([&] { data::load_csv(short_row); }), HasSubstr(short_row + ":3: 1 columns, the header has 2"));
  const auto text = file_with("t.csv", "a\nhello\n");
  EXPECT_THAT(data_error([&] { data::load_csv(text); }), HasSubstr("column 'a': \"hello\" is not a number"));
  EXPECT_THAT(data_error([&] { data::load_csv(file_with("h.csv", "a,b\n")); }), HasSubstr("only a header row"));
}
