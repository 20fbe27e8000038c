#pragma once
#include <climits>
#include <cstdint>
#include <map>
#include <stdexcept>

#include "runtime/core/errors.h"

namespace runner::data {

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

namespace detail {

// kNone: no value seen yet (empty lists read as int64); kText: strings or objects somewhere in
// the field (a text field, as datasets' string and struct columns).
enum class Kind { kNone, kInt, kFloat, kBool, kText };

inline bool holds_text(const nlohmann::json& v) {
  if (v.is_string() || v.is_object()) return true;
  if (v.is_array())
    for (const auto& x : v)
      if (holds_text(x)) return true;
  return false;
}

inline void scan_kind(const nlohmann::json& v, Kind& kind) {
  if (v.is_null()) return;  // a missing value: an absent key in a text field, an error in a tensor one
  if (holds_text(v)) {
    if (kind != Kind::kNone && kind != Kind::kText) throw std::invalid_argument("mixes text and numbers");
    kind = Kind::kText;
    return;
  }
  if (kind == Kind::kText) throw std::invalid_argument("mixes text and numbers");
  if (v.is_array()) {
    for (const auto& x : v) scan_kind(x, kind);
  } else if (v.is_boolean()) {
    if (kind != Kind::kBool && kind != Kind::kNone) throw std::invalid_argument("mixes booleans and numbers");
    kind = Kind::kBool;
  } else if (v.is_number_integer()) {
    if (kind == Kind::kBool) throw std::invalid_argument("mixes booleans and numbers");
    if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
      throw std::invalid_argument("holds " + v.dump() + ", beyond int64");
    if (kind == Kind::kNone) kind = Kind::kInt;
  } else if (v.is_number_float()) {
    if (kind == Kind::kBool) throw std::invalid_argument("mixes booleans and numbers");
    kind = Kind::kFloat;
  } else {
    throw std::invalid_argument(v.is_string() ? "holds text (runner needs numbers here)" : "holds " + std::string(v.type_name()));
  }
}

// Integer fields are read as int64, never through a double: ids beyond 2^53 stay exact.
template <class T>
void flatten(const nlohmann::json& v, std::vector<T>& out) {
  if (v.is_array()) {
    for (const auto& x : v) flatten(x, out);
  } else {
    out.push_back(v.is_boolean() ? static_cast<T>(v.get<bool>()) : v.get<T>());
  }
}

inline at::Tensor json_tensor(const nlohmann::json& v, Kind kind) {
  const auto shape = json_shape(v);
  if (kind == Kind::kFloat) {
    std::vector<double> values;
    flatten(v, values);
    return at::tensor(values, at::kDouble).view(shape).to(at::kFloat);
  }
  std::vector<int64_t> values;
  flatten(v, values);
  const at::Tensor t = at::tensor(values, at::kLong).view(shape);
  return kind == Kind::kBool ? t.to(at::kBool) : t;
}

}  // namespace detail

inline DatasetPtr tensors_of(std::vector<Example> examples, const std::map<std::string, detail::Kind>& kinds, const std::string& origin) {
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

template <class Where>
DatasetPtr dataset_from_rows(const std::vector<nlohmann::json>& rows, const std::string& origin, Where where) {
  if (rows.empty()) throw DataError("no examples", origin);
  // One dtype per field over all rows (an integer column with one 0.5 is a float column).
  std::map<std::string, detail::Kind> kinds;
  for (size_t i = 0; i < rows.size(); ++i) {
    for (auto it = rows[i].begin(); it != rows[i].end(); ++it) {
      auto k = kinds.emplace(it.key(), detail::Kind::kNone).first;
      try {
        detail::scan_kind(it.value(), k->second);
      } catch (const std::invalid_argument& e) {
        throw DataError("field '" + it.key() + "' " + e.what(), where(i));
      }
    }
  }
  // Text fields (strings, objects, lists of them) are kept as JSON per example, the rest are tensors.
  std::vector<std::string> text_fields;
  for (auto it = kinds.begin(); it != kinds.end();)
    if (it->second == detail::Kind::kText) text_fields.push_back(it->first), it = kinds.erase(it);
    else ++it;
  std::vector<nlohmann::ordered_json> texts;
  std::vector<Example> examples;
  examples.reserve(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    Example ex;
    for (const auto& [name, kind] : kinds) {
      if (!rows[i].contains(name)) throw DataError("missing field '" + name + "'", where(i));
      if (rows[i][name].is_null()) throw DataError("field '" + name + "' is null (empty), which a tensor cannot hold", where(i));
      try {
        json_shape(rows[i][name]);
      } catch (const std::invalid_argument& e) {
        throw DataError("field '" + name + "' " + e.what(), where(i));
      }
      ex[name] = detail::json_tensor(rows[i][name], kind);
    }
    examples.push_back(std::move(ex));
    if (text_fields.empty()) continue;
    nlohmann::ordered_json t = nlohmann::ordered_json::object();
    for (const auto& name : text_fields)
      if (rows[i].contains(name) && !rows[i][name].is_null()) t[name] = rows[i][name];  // a null is an absent key, as None
    texts.push_back(std::move(t));
  }
  if (!text_fields.empty()) {
    DatasetPtr base = kinds.empty() ? nullptr : tensors_of(std::move(examples), kinds, origin);
    return std::make_shared<TextRowsDataset>(std::move(base), std::move(text_fields), std::move(texts), origin);
  }
  return tensors_of(std::move(examples), kinds, origin);
}

}  // namespace runner::data
