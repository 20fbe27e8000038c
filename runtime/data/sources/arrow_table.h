// data.parquet, data.arrow and data.hf_dataset: the files HF `datasets` keeps data in, read with
// the Apache Arrow C++ libraries (libarrow, libparquet; cmake/arrow.cmake says where from).
//
// Every column a recipe names (all when it names none) becomes a field. Numbers, booleans and
// (nested) lists of them are tensors as HF's torch format gives them: integers int64, floats
// float32, booleans bool; a list of token ids a 1-D tensor, a list of equal-length lists a 2-D
// one. Strings, structs and lists holding them are text fields (Dataset::text): map/filter
// functions see them as Lua strings and tables, data.sft reads a messages column from them.
// A DataError names the file (and row group or row) and the column for a missing column, a
// type runner cannot represent, a value a tensor cannot hold (null, a ragged nested list), a
// corrupt Parquet page or a truncated Arrow file.
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "runtime/data/dataset.h"

namespace runner::data {

struct ArrowOptions {
  std::vector<std::string> columns;               // empty: every column
  std::map<std::string, at::ScalarType> dtypes;   // per column, instead of int64/float32/bool
};

// A file, a folder (its *.parquet files, sorted) or a glob ("data/train-*.parquet").
DatasetPtr load_parquet(const std::string& path, const ArrowOptions& options);
// Arrow IPC files (Feather v2) and streams (what `datasets` writes as data-*.arrow), memory-
// mapped, not copied: a file, a folder (its *.arrow files, sorted) or a glob.
DatasetPtr load_arrow(const std::string& path, const ArrowOptions& options);
// The given files as one dataset, in order (Arrow IPC files or streams).
DatasetPtr load_arrow_files(const std::vector<std::string>& files, const ArrowOptions& options, const std::string& origin);

// A `datasets` save_to_disk folder. A Dataset folder (state.json, dataset_info.json, data-*.arrow)
// gives one entry named by `split` (or ""); a DatasetDict folder (dataset_dict.json, one folder
// per split) gives each split in its order there, or only `split` when given.
std::vector<std::pair<std::string, DatasetPtr>> load_hf_dataset(const std::string& folder, const std::string& split,
                                                                const ArrowOptions& options);

}  // namespace runner::data
