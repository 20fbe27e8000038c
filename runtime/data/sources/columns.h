// Shared by the text sources: build tensors from parsed JSON values with one dtype per
// field, chosen over the whole file.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/data/dataset.h"

namespace runner::data {

// The tensor fields of `base` (null: none) plus text fields held as JSON per example: what a
// JSONL or CSV file with string (or object) fields gives, as datasets' string columns.
class TextRowsDataset : public Dataset {
 public:
  TextRowsDataset(DatasetPtr base, std::vector<std::string> text_fields, std::vector<nlohmann::ordered_json> texts, std::string origin);
  int64_t size() const override { return static_cast<int64_t>(texts_.size()); }
  Example get(int64_t index) const override;
  std::vector<std::string> fields() const override;
  bool gather(const std::vector<int64_t>& indices, Batch& out) const override;
  std::string describe() const override { return origin_; }
  std::vector<std::string> text_fields() const override { return text_fields_; }
  nlohmann::ordered_json text(int64_t index) const override;

 private:
  DatasetPtr base_;
  std::vector<std::string> text_fields_;
  std::vector<nlohmann::ordered_json> texts_;
  std::string origin_;
};

// rows[i] is a JSON object (field → number | bool | nested array of numbers, or text: strings,
// objects and lists of them; null: a missing value).
// `where(i)` names row i for error messages ("file.jsonl:12").
template <class Where>
DatasetPtr dataset_from_rows(const std::vector<nlohmann::json>& rows, const std::string& origin, Where where);

std::vector<int64_t> json_shape(const nlohmann::json& v);  // throws std::invalid_argument on ragged/strings

}  // namespace runner::data

#include "runtime/data/sources/columns_impl.h"
