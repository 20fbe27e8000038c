// The dataset over Arrow arrays that data.parquet, data.arrow and data.hf_dataset build
// (arrow_table.h), and what their readers share. Includes Arrow's headers, which need C++20:
// only the files of the runner_data_arrow target include it (runtime/data/CMakeLists.txt).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <arrow/api.h>

#include "runtime/data/sources/arrow_table.h"

namespace runner::data {

// One file's columns as read: `columns[j]` is `schema->field(j)` (already projected).
struct ArrowPart {
  std::string path;
  std::shared_ptr<arrow::Schema> schema;
  std::vector<std::shared_ptr<arrow::ChunkedArray>> columns;
  int64_t rows = 0;
};

// The indices of the top-level fields `options.columns` names (all when empty), in schema
// order; DataError naming `path` for a column the file lacks.
std::vector<int> project(const arrow::Schema& schema, const ArrowOptions& options, const std::string& path);

// The parts' rows, one after the other. DataError when a part's columns differ in type from
// the first's, or a column's type is one runner cannot represent.
DatasetPtr make_arrow_dataset(std::vector<ArrowPart> parts, const ArrowOptions& options, std::string origin);

// `path` as a list of files: itself, a folder's files ending in `ext` (sorted), or a glob's
// matches (sorted). DataError when nothing matches.
std::vector<std::string> expand_paths(const std::string& path, const std::string& ext);

// Throws a DataError located at `where` with `what` and Arrow's message, on one line.
void check_status(const arrow::Status& status, const std::string& where, const std::string& what);

}  // namespace runner::data
