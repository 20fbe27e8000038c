// The rows of a JSON Lines file, or of a dataset's text fields (data.parquet, data.arrow,
// data.hf_dataset) read as a line's JSON object: what data.sft and data.preference read.
#pragma once
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/data/dataset.h"

namespace runner::data {

// Calls `row(object, where)` for each non-blank line of `path` ("file:line") or each row of
// `dataset` ("<dataset> row i"; a null field, one that another row has, is left out), in order.
// DataError for an unreadable file or a line that is not a JSON object; `needs` ("\"prompt\"
// and \"response\"") completes the error for a dataset without text fields.
void for_each_json_row(const std::string& path, const DatasetPtr& dataset, const std::string& needs,
                       const std::function<void(const nlohmann::ordered_json&, const std::string&)>& row);

// A row's "tools": a list, or that list as a JSON string (HF datasets often store it so; TRL
// parses it); null when absent. DataError at `where` for a string that is not JSON.
nlohmann::ordered_json tools_of(const nlohmann::ordered_json& row, const std::string& where);
// A row's "chat_template_kwargs" (TRL passes them to apply_chat_template), null when absent.
nlohmann::ordered_json kwargs_of(const nlohmann::ordered_json& row, const std::string& where);

}  // namespace runner::data
