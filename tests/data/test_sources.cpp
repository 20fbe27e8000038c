#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "runtime/core/errors.h"
#include "runtime/data/sources/sources.h"
#include "tests/data/data_test_util.h"

using namespace runner;
using ::testing::HasSubstr;

using runner::testing::data_error;
using runner::testing::temp_file;

TEST(Jsonl, TypesPerFieldOverTheWholeFile) {
  auto ds = data::load_jsonl(temp_file("a.jsonl", "{\"x\": [1, 2], \"labels\": 1}\n\n{\"x\": [0.5, 3], \"labels\": 0}\n"));
  ASSERT_EQ(ds->size(), 2);
  auto e = ds->get(0);
  EXPECT_EQ(e.at("x").scalar_type(), at::kFloat);  // 0.5 in row 2 makes the whole field float
  EXPECT_EQ(e.at("labels").scalar_type(), at::kLong);
  EXPECT_TRUE(e.at("x").equal(at::tensor({1.0f, 2.0f})));
}

// Integers are read as int64, not through a double (2^53 + 1 would become 2^53).
TEST(Jsonl, LargeIntegersStayExact) {
  auto ds = data::load_jsonl(temp_file("big.jsonl", "{\"id\": 9007199254740993, \"ids\": [-9223372036854775807, 3]}\n"
                                                    "{\"id\": 2, \"ids\": [9223372036854775807, 1]}\n"));
  EXPECT_EQ(ds->get(0).at("id").item<int64_t>(), 9007199254740993LL);
  EXPECT_EQ(ds->get(0).at("ids")[0].item<int64_t>(), -9223372036854775807LL);
  EXPECT_EQ(ds->get(1).at("ids")[0].item<int64_t>(), 9223372036854775807LL);
  EXPECT_EQ(ds->get(1).at("ids")[1].item<int64_t>(), 1);
  // booleans and integers do not mix, in either order
  const std::string mixed = temp_file("mixed.jsonl", "{\"m\": [1, true]}\n");
  EXPECT_THAT(data_error([&] { data::load_jsonl(mixed); }), HasSubstr(mixed + ":1: field 'm' mixes booleans and numbers"));
  const std::string huge = temp_file("huge.jsonl", "{\"id\": 9223372036854775808}\n");
  EXPECT_THAT(data_error([&] { data::load_jsonl(huge); }), HasSubstr(huge + ":1: field 'id' holds 9223372036854775808, beyond int64"));
}

// Strings and objects are text fields (datasets' string and struct columns): map and filter
// functions see them, batches hold the tensors; a null is an absent key.
TEST(Jsonl, StringFieldsAreTextFields) {
  auto ds = data::load_jsonl(temp_file("text.jsonl", "{\"text\": \"good film\", \"label\": 1, \"meta\": {\"src\": \"a\"}}\n"
                                                     "{\"text\": \"bad\", \"label\": 0, \"meta\": null}\n"));
  ASSERT_EQ(ds->size(), 2);
  EXPECT_EQ(ds->fields(), std::vector<std::string>{"label"});
  EXPECT_EQ(ds->text_fields(), (std::vector<std::string>{"meta", "text"}));
  EXPECT_EQ(ds->get(1).at("label").item<int64_t>(), 0);
  EXPECT_EQ(ds->text(0)["text"], "good film");
  EXPECT_EQ(ds->text(0)["meta"]["src"], "a");
  EXPECT_FALSE(ds->text(1).contains("meta"));
  auto only_text = data::load_csv(temp_file("t.csv", "sentence,label\n\"a, b\",pos\nc,neg\n"));
  EXPECT_TRUE(only_text->fields().empty());
  EXPECT_EQ(only_text->text(0)["sentence"], "a, b");
  EXPECT_EQ(only_text->text(1)["label"], "neg");
  const auto mixed = temp_file("m.jsonl", "{\"x\": 1}\n{\"x\": \"one\"}\n");
  EXPECT_THAT(data_error([&] { data::load_jsonl(mixed); }), HasSubstr(mixed + ":2: field 'x' mixes text and numbers"));
}

TEST(Jsonl, VariableLengthFieldsStayPerExample) {
  auto ds = data::load_jsonl(temp_file("v.jsonl", "{\"ids\": [1, 2, 3]}\n{\"ids\": [4]}\n"));
  EXPECT_EQ(ds->get(0).at("ids").size(0), 3);
  EXPECT_EQ(ds->get(1).at("ids").size(0), 1);
}

TEST(Jsonl, ErrorsNameFileAndLine) {
  EXPECT_THAT(data_error([] { data::load_jsonl("/nonexistent/x.jsonl"); }), HasSubstr("/nonexistent/x.jsonl: cannot open: No such file"));
  const auto empty = temp_file("empty.jsonl", "");
  EXPECT_THAT(data_error([&] { data::load_jsonl(empty); }), HasSubstr(empty + ": no examples"));
  const auto bad = temp_file("bad.jsonl", "{\"x\": 1}\n{\"x\": \n");
  EXPECT_THAT(data_error([&] { data::load_jsonl(bad); }), HasSubstr(bad + ":2: not valid JSON"));
  const auto null = temp_file("null.jsonl", "{\"x\": 1}\n{\"x\": null}\n");
  EXPECT_THAT(data_error([&] { data::load_jsonl(null); }), HasSubstr(null + ":2: field 'x' is null (empty), which a tensor cannot hold"));
  const auto ragged = temp_file("ragged.jsonl", "{\"x\": [[1, 2], [3]]}\n");
  EXPECT_THAT(data_error([&] { data::load_jsonl(ragged); }), HasSubstr("ragged"));
  const auto non_utf8 = temp_file("latin1.jsonl", "{\"x\": 1, \"t\": \"caf\xe9\"}\n");
  EXPECT_THAT(data_error([&] { data::load_jsonl(non_utf8); }), HasSubstr(non_utf8 + ":1: not valid JSON"));
}

TEST(Csv, NumericColumnsWithQuotes) {
  auto ds = data::load_csv(temp_file("a.csv", "x,\"y\",labels\n1.5,2,0\n\"3\",4,1\n"));
  ASSERT_EQ(ds->size(), 2);
  EXPECT_EQ(ds->get(0).at("x").scalar_type(), at::kFloat);
  EXPECT_EQ(ds->get(0).at("y").scalar_type(), at::kLong);
  EXPECT_FLOAT_EQ(ds->get(1).at("x").item<float>(), 3.0f);
}

TEST(Csv, AByteOrderMarkIsNotPartOfTheFirstName) {
  // Excel's "CSV UTF-8" starts with one; pandas and HF strip it.
  auto ds = data::load_csv(temp_file("bom.csv", "\xEF\xBB\xBFx,labels\n1.5,0\n"));
  ASSERT_EQ(ds->size(), 1);
  EXPECT_FLOAT_EQ(ds->get(0).at("x").item<float>(), 1.5f);
}

TEST(Csv, QuotedFieldsMayHoldLineBreaksAndErrorsNameTheRecordsFirstLine) {
  // RFC 4180: a quoted field may span lines (a header written by a spreadsheet, say); rows
  // are counted as records, errors name the line a record starts on. CRLF files too.
  const auto path = temp_file("q.csv", "\"first\ncolumn\",b\r\n1,2\r\n3,4\r\n");
  auto ds = data::load_csv(path);
  ASSERT_EQ(ds->size(), 2);
  EXPECT_EQ(ds->get(1).at("first\ncolumn").item<int64_t>(), 3);
  const auto bad = temp_file("qb.csv", "a,\"b\nc\"\n1,2\n3\n");  // the header spans lines 1-2
  EXPECT_THAT(data_error([&] { data::load_csv(bad); }), HasSubstr(bad + ":4: 1 columns, the header has 2"));
  const auto open = temp_file("qo.csv", "a,b\n\"1,2\n3,4\n");
  EXPECT_THAT(data_error([&] { data::load_csv(open); }), HasSubstr(open + ":2: unterminated quoted field"));
}

TEST(Csv, Errors) {
  const auto short_row = temp_file("s.csv", "a,b\n1,2\n3\n");
  EXPECT_THAT(data_error([&] { data::load_csv(short_row); }), HasSubstr(short_row + ":3: 1 columns, the header has 2"));
  const auto mixed = temp_file("t.csv", "a\n1\nhello\n");
  EXPECT_THAT(data_error([&] { data::load_csv(mixed); }), HasSubstr(mixed + ":3: field 'a' mixes text and numbers"));
  const auto empty = temp_file("e.csv", "a,b\n1,x\n,y\n");
  EXPECT_THAT(data_error([&] { data::load_csv(empty); }), HasSubstr(empty + ":3: field 'a' is null (empty)"));
  EXPECT_THAT(data_error([&] { data::load_csv(temp_file("h.csv", "a,b\n")); }), HasSubstr("only a header row"));
}
