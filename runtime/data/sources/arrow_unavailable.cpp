// The Parquet and Arrow sources of a runner built with RUNNER_WITH_ARROW=OFF (no libarrow):
// each is one line saying so, never a silent empty dataset.
#include "runtime/core/errors.h"
#include "runtime/data/sources/arrow_table.h"
#include "runtime/data/stream/records.h"

namespace runner::data {

namespace {
[[noreturn]] void unavailable(const std::string& what, const std::string& path) {
  throw RecipeError(what + "(\"" + path + "\"): this runner was built without Arrow (RUNNER_WITH_ARROW=OFF); "
                    "build it with the default RUNNER_WITH_ARROW=ON to read Parquet and Arrow files");
}
}  // namespace

std::unique_ptr<RecordReader> open_parquet_records(const std::string& path, const std::string&, RecordPos) {
  unavailable("data.stream{format = \"parquet\"}", path);
}
std::unique_ptr<RecordReader> open_arrow_records(const std::string& path, const std::string&, RecordPos) {
  unavailable("data.stream{format = \"arrow\"}", path);
}
DatasetPtr load_parquet(const std::string& path, const ArrowOptions&) { unavailable("data.parquet", path); }
DatasetPtr load_arrow(const std::string& path, const ArrowOptions&) { unavailable("data.arrow", path); }
DatasetPtr load_arrow_files(const std::vector<std::string>& files, const ArrowOptions&, const std::string& origin) {
  unavailable("data.arrow", files.empty() ? origin : files.front());
}
std::vector<std::pair<std::string, DatasetPtr>> load_hf_dataset(const std::string& folder, const std::string&, const ArrowOptions&) {
  unavailable("data.hf_dataset", folder);
}

}  // namespace runner::data
