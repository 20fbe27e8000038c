#pragma once
#include <map>
#include <stdexcept>

#include "runtime/core/errors.h"

namespace runner::data {

namespace detail {

enum class Kind { kInt, kFloat, kBool };

inline void scan_kind(const nlohmann::json& v, Kind& kind) {
  if (v.is_array()) {
    for (const auto& x : v) scan_kind(x, kind);
  } else if (v.is_boolean()) {
    if (kind != Kind::kBool && kind != Kind::kInt) throw std::invalid_argument("mixes booleans and numbers");
    kind = Kind::kBool;
  } else if (v.is_number_integer()) {
    if (kind == Kind::kBool) throw std::invalid_argument("mixes booleans and numbers");
  } else if (v.is_number_float()) {
    if (kind == Kind::kBool) throw std::invalid_argument("mixes booleans and numbers");
    kind = Kind::kFloat;
  } else {
    throw std::invalid_argument(v.is_string() ? "holds text (runner needs numbers here)" : "holds " + std::string(v.type_name()));
  }
}

inline void flatten(const nlohmann::json& v, std::vector<double>& out) {
  if (v.is_array()) {
    for (const auto& x : v) flatten(x, out);
  } else {
    out.push_back(v.is_boolean() ? (v.get<bool>() ? 1.0 : 0.0) : v.get<double>());
  }
}

}  // namespace detail

inline std::vector<int64_t> json_shape(const nlohmann::json& v) {
  if (!v.is_array()) return {};
  std::vector<int64_t> shape{static_cast<int64_t>(v.size())};
  if (v.empty()) return shape;
  auto inner = json_shape(v[0]);
  for (const auto& x : v)
    if (json_shape(x) != inner) throw std::invalid_argument("is a ragged nested list");
  shape.insert(shape.end(), inner.begin(), inner.end());
  return shape;
}

template <class Where>
DatasetPtr dataset_from_rows(const std::vector<nlohmann::json>& rows, const std::string& origin, Where where) {
  if (rows.empty()) throw DataError("no examples", origin);
  // One dtype per field over all rows (an integer column with one 0.5 is a float column).
  std::map<std::string, detail::Kind> kinds;
  for (size_t i = 0; i < rows.size(); ++i) {
    for (auto it = rows[i].begin(); it != rows[i].end(); ++it) {
      auto k = kinds.emplace(it.key(), detail::Kind::kInt).first;
      try {
        detail::scan_kind(it.value(), k->second);
        json_shape(it.value());
      } catch (const std::invalid_argument& e) {
        throw DataError("field '" + it.key() + "' " + e.what(), where(i));
      }
    }
  }
  std::vector<Example> examples;
  examples.reserve(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    Example ex;
    for (const auto& [name, kind] : kinds) {
      if (!rows[i].contains(name)) throw DataError("missing field '" + name + "'", where(i));
      std::vector<double> values;
      detail::flatten(rows[i][name], values);
      at::Tensor t = at::tensor(values, at::kDouble).view(json_shape(rows[i][name]));
      ex[name] = t.to(kind == detail::Kind::kInt ? at::kLong : kind == detail::Kind::kBool ? at::kBool : at::kFloat);
    }
    examples.push_back(std::move(ex));
  }
  // Uniform shapes (the common case) become one tensor per field: batches are then gathered
  // with index_select instead of stacked example by example.
  bool uniform = true;
  for (const auto& [name, kind] : kinds)
    for (const auto& ex : examples)
      if (!ex.at(name).sizes().equals(examples.front().at(name).sizes())) uniform = false;
  if (!uniform) return std::make_shared<ExampleListDataset>(std::move(examples), origin);
  Batch columns;
  for (const auto& [name, kind] : kinds) {
    std::vector<at::Tensor> parts;
    for (const auto& ex : examples) parts.push_back(ex.at(name));
    columns[name] = at::stack(parts, 0);
  }
  return std::make_shared<TensorDataset>(std::move(columns), origin);
}

}  // namespace runner::data
