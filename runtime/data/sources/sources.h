// File-backed dataset sources. Files are opened read-only; a missing, unreadable or
// malformed file is a DataError naming the file (and line where there is one).
// The richer sources have their own headers, included here so one include gives them all.
#pragma once
#include <string>

#include "runtime/data/dataset.h"
#include "runtime/data/sources/idx.h"
#include "runtime/data/sources/synthetic.h"
#include "runtime/data/sources/text.h"
#include "runtime/data/sources/token_bin.h"

namespace runner::data {

// One JSON object per line. Numbers and (nested) arrays of numbers become tensors: int64
// when every value of the field is an integer, float32 otherwise; booleans become bool.
DatasetPtr load_jsonl(const std::string& path);

// Comma-separated values with a header row; every column must be numeric (int64 when all
// values are integers, float32 otherwise). Quoted fields are allowed.
DatasetPtr load_csv(const std::string& path);

}  // namespace runner::data
