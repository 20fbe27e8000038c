// Shared by the text sources: build tensors from parsed JSON values with one dtype per
// field, chosen over the whole file.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/data/dataset.h"

namespace runner::data {

// rows[i] is a JSON object (field → number | bool | nested array of numbers).
// `where(i)` names row i for error messages ("file.jsonl:12").
template <class Where>
DatasetPtr dataset_from_rows(const std::vector<nlohmann::json>& rows, const std::string& origin, Where where);

std::vector<int64_t> json_shape(const nlohmann::json& v);  // throws std::invalid_argument on ragged/strings

}  // namespace runner::data

#include "runtime/data/sources/columns_impl.h"
