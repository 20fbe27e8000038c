// data.parquet / data.arrow at the C++ level, on files pyarrow writes (RUNNER_PYTHON): the Arrow
// types beyond what the integration test (tests/integration/test_arrow_data.py) compares with
// `datasets` — large lists and strings, fixed-size lists, float16, uint64, an empty nested list —
// the dtypes option, and text fields through select/shuffle views.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "runtime/data/sources/arrow_table.h"
#include "runtime/data/transforms.h"
#include "tests/data/data_test_util.h"

using namespace runner;
using namespace runner::data;
using runner::testing::data_error;
using runner::testing::temp_file;
using ::testing::HasSubstr;

namespace {

// Runs a pyarrow script (it writes beside itself); false when it fails (no pyarrow).
bool write_with_pyarrow(const std::string& script) {
  const std::string path = temp_file("write_arrow.py", script);
  const int rc = std::system((std::string(RUNNER_PYTHON) + " " + path).c_str());
  return rc == 0;
}

// The folder temp_file writes into, where the script writes too.
std::string dir() { return (std::filesystem::temp_directory_path() / ("runner_data_" + std::to_string(::getpid()))).string(); }

const char* kTypes = R"(
import sys, pyarrow as pa, pyarrow.parquet as pq, pyarrow.feather as feather
d = sys.argv[0].rsplit("/", 1)[0]
t = pa.table({
    "big": pa.array([[1, 2], [3]], pa.large_list(pa.int16())),
    "fixed": pa.array([[1.5, 2.5], [3.5, 4.5]], pa.list_(pa.float32(), 2)),
    "half": pa.array([0.5, -2.0], pa.float16()),
    "u": pa.array([7, 2**63 + 1], pa.uint64()),
    "grid": pa.array([[[1, 2], [3, 4]], []], pa.list_(pa.list_(pa.int32()))),
    "name": pa.array(["a", "bé"], pa.large_string()),
    "meta": pa.array([{"k": 1, "v": "x"}, {"k": None, "v": "y"}]),
})
pq.write_table(t, d + "/types.parquet")
feather.write_feather(t, d + "/types.arrow", compression="uncompressed")
)";

}  // namespace

TEST(ArrowSources, TypesBecomeTensorsOrTextFields) {
  ASSERT_TRUE(write_with_pyarrow(kTypes)) << "pyarrow (scripts/setup installs it)";
  for (const std::string file : {"types.parquet", "types.arrow"}) {
    SCOPED_TRACE(file);
    const std::string path = dir() + "/" + file;
    ArrowOptions o;
    o.columns = {"big", "fixed", "half", "grid", "name", "meta"};
    DatasetPtr ds = file == "types.arrow" ? load_arrow(path, o) : load_parquet(path, o);
    ASSERT_EQ(ds->size(), 2);
    EXPECT_EQ(ds->fields(), (std::vector<std::string>{"big", "fixed", "grid", "half"}));
    EXPECT_EQ(ds->text_fields(), (std::vector<std::string>{"name", "meta"}));
    const Example e = ds->get(0);
    EXPECT_TRUE(e.at("big").equal(at::tensor({1, 2}, at::kLong)));
    EXPECT_TRUE(e.at("fixed").equal(at::tensor({1.5f, 2.5f})));
    EXPECT_EQ(e.at("half").scalar_type(), at::kFloat);
    EXPECT_EQ(e.at("half").item<float>(), 0.5f);
    EXPECT_TRUE(e.at("grid").equal(at::tensor({1, 2, 3, 4}, at::kLong).view({2, 2})));
    // An empty list of lists keeps its two dims.
    EXPECT_EQ(ds->get(1).at("grid").sizes(), at::IntArrayRef({0, 0}));
    const auto text = ds->text(1);
    EXPECT_EQ(text["name"], "bé");
    EXPECT_TRUE(text["meta"]["k"].is_null());
    EXPECT_EQ(text["meta"]["v"], "y");
    // Views forward text fields with their own indices.
    const DatasetPtr picked = select(ds, {1, 0});
    EXPECT_EQ(picked->text_fields(), ds->text_fields());
    EXPECT_EQ(picked->text(0)["name"], "bé");
    EXPECT_EQ(picked->text(1)["name"], "a");
  }
}

TEST(ArrowSources, DtypesWidenButNeverTruncate) {
  ASSERT_TRUE(write_with_pyarrow(kTypes)) << "pyarrow (scripts/setup installs it)";
  const std::string path = dir() + "/types.parquet";
  ArrowOptions o;
  o.columns = {"big"};
  o.dtypes = {{"big", at::kFloat}};
  EXPECT_EQ(load_parquet(path, o)->get(0).at("big").scalar_type(), at::kFloat);
  o.columns = {"fixed"};
  o.dtypes = {{"fixed", at::kLong}};
  EXPECT_THAT(data_error([&] { load_parquet(path, o); }), HasSubstr("column 'fixed' holds floating-point values"));
  o.columns = {"name"};
  o.dtypes = {{"name", at::kLong}};
  EXPECT_THAT(data_error([&] { load_parquet(path, o); }), HasSubstr("column 'name' holds"));
  // uint64 beyond int64 is named by row and column when the example is read.
  o.columns = {"u"};
  o.dtypes = {};
  const DatasetPtr ds = load_parquet(path, o);
  EXPECT_EQ(ds->get(0).at("u").item<int64_t>(), 7);
  EXPECT_THAT(data_error([&] { ds->get(1); }), HasSubstr("row 1, column 'u' holds 9223372036854775809, which does not fit int64"));
}
