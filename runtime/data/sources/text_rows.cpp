#include "runtime/core/errors.h"
#include "runtime/data/sources/columns.h"

namespace runner::data {

TextRowsDataset::TextRowsDataset(DatasetPtr base, std::vector<std::string> text_fields, std::vector<nlohmann::ordered_json> texts,
                                 std::string origin)
    : base_(std::move(base)), text_fields_(std::move(text_fields)), texts_(std::move(texts)), origin_(std::move(origin)) {}

Example TextRowsDataset::get(int64_t index) const {
  if (index < 0 || index >= size()) throw DataError("index " + std::to_string(index) + " out of range (size " + std::to_string(size()) + ")", origin_);
  return base_ ? base_->get(index) : Example{};
}

std::vector<std::string> TextRowsDataset::fields() const { return base_ ? base_->fields() : std::vector<std::string>{}; }

bool TextRowsDataset::gather(const std::vector<int64_t>& indices, Batch& out) const { return base_ && base_->gather(indices, out); }

nlohmann::ordered_json TextRowsDataset::text(int64_t index) const {
  if (index < 0 || index >= size()) throw DataError("index " + std::to_string(index) + " out of range (size " + std::to_string(size()) + ")", origin_);
  return texts_[static_cast<size_t>(index)];
}

}  // namespace runner::data
