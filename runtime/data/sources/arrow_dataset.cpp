#include "runtime/data/sources/arrow_dataset.h"

#include <glob.h>

#include <algorithm>
#include <filesystem>

#include <arrow/util/float16.h>

#include "runtime/core/errors.h"
#include "runtime/core/found_files.h"
#include "runtime/data/dtype_name.h"

namespace runner::data {

namespace {

using json = nlohmann::ordered_json;

enum class Leaf { kInt, kFloat, kBool, kNone };

bool nested_list(arrow::Type::type id) {
  return id == arrow::Type::LIST || id == arrow::Type::LARGE_LIST || id == arrow::Type::FIXED_SIZE_LIST;
}

// What a tensor column's innermost values are (kNone: not a tensor column), and how deep its lists nest.
Leaf tensor_leaf(const arrow::DataType& type, int& depth) {
  if (arrow::is_integer(type.id())) return Leaf::kInt;
  if (arrow::is_floating(type.id())) return Leaf::kFloat;
  if (type.id() == arrow::Type::BOOL) return Leaf::kBool;
  if (nested_list(type.id())) {
    ++depth;
    return tensor_leaf(*type.field(0)->type(), depth);
  }
  return Leaf::kNone;
}

// Whether a text field (JSON) can hold the type.
bool text_ok(const arrow::DataType& type) {
  const auto id = type.id();
  if (arrow::is_integer(id) || arrow::is_floating(id) || id == arrow::Type::BOOL || id == arrow::Type::NA ||
      id == arrow::Type::STRING || id == arrow::Type::LARGE_STRING || id == arrow::Type::STRING_VIEW)
    return true;
  // Dictionary-encoded values (pandas categoricals, pyarrow's dictionary_encode) read as their values.
  if (id == arrow::Type::DICTIONARY) return text_ok(*static_cast<const arrow::DictionaryType&>(type).value_type());
  if (nested_list(id) || id == arrow::Type::STRUCT) {
    for (const auto& f : type.fields())
      if (!text_ok(*f->type())) return false;
    return true;
  }
  return false;
}

// The values of list `i` of a list array: its child array and the range [begin, begin + length).
void list_slice(const arrow::Array& a, int64_t i, const arrow::Array*& values, int64_t& begin, int64_t& length) {
  switch (a.type_id()) {
    case arrow::Type::LIST: {
      const auto& l = static_cast<const arrow::ListArray&>(a);
      values = l.values().get(), begin = l.value_offset(i), length = l.value_length(i);
      return;
    }
    case arrow::Type::LARGE_LIST: {
      const auto& l = static_cast<const arrow::LargeListArray&>(a);
      values = l.values().get(), begin = l.value_offset(i), length = l.value_length(i);
      return;
    }
    default: {
      const auto& l = static_cast<const arrow::FixedSizeListArray&>(a);
      values = l.values().get(), begin = l.value_offset(i), length = l.value_length(i);
    }
  }
}

template <class T>
auto value(const arrow::Array& a, int64_t i) {
  return static_cast<const arrow::NumericArray<T>&>(a).Value(i);
}

// Element i of an integer, floating or boolean array.
int64_t int_at(const arrow::Array& a, int64_t i) {
  switch (a.type_id()) {
    case arrow::Type::INT8: return value<arrow::Int8Type>(a, i);
    case arrow::Type::INT16: return value<arrow::Int16Type>(a, i);
    case arrow::Type::INT32: return value<arrow::Int32Type>(a, i);
    case arrow::Type::UINT8: return value<arrow::UInt8Type>(a, i);
    case arrow::Type::UINT16: return value<arrow::UInt16Type>(a, i);
    case arrow::Type::UINT32: return value<arrow::UInt32Type>(a, i);
    case arrow::Type::UINT64: {
      const uint64_t v = value<arrow::UInt64Type>(a, i);
      if (v > static_cast<uint64_t>(INT64_MAX)) throw std::out_of_range("holds " + std::to_string(v) + ", which does not fit int64");
      return static_cast<int64_t>(v);
    }
    case arrow::Type::BOOL: return static_cast<const arrow::BooleanArray&>(a).Value(i);
    default: return value<arrow::Int64Type>(a, i);
  }
}
double float_at(const arrow::Array& a, int64_t i) {
  switch (a.type_id()) {
    case arrow::Type::HALF_FLOAT: return arrow::util::Float16::FromBits(value<arrow::HalfFloatType>(a, i)).ToDouble();
    case arrow::Type::FLOAT: return value<arrow::FloatType>(a, i);
    case arrow::Type::DOUBLE: return value<arrow::DoubleType>(a, i);
    default: return static_cast<double>(int_at(a, i));
  }
}

// Appends element i (a number or nested lists of them) to `ints` or `floats`, recording the
// length of each list level in `shape` (a level seen before must have the same length).
void flatten(const arrow::Array& a, int64_t i, size_t level, bool floating, std::vector<int64_t>& shape,
             std::vector<int64_t>& ints, std::vector<double>& floats) {
  if (a.IsNull(i)) throw std::invalid_argument("holds a null, which a tensor cannot hold");
  if (!nested_list(a.type_id())) {
    if (floating) floats.push_back(float_at(a, i));
    else ints.push_back(int_at(a, i));
    return;
  }
  const arrow::Array* values = nullptr;
  int64_t begin = 0, length = 0;
  list_slice(a, i, values, begin, length);
  if (shape.size() == level) shape.push_back(length);
  else if (shape[level] != length) throw std::invalid_argument("is a ragged nested list (lists of different lengths), which a tensor cannot hold");
  for (int64_t k = 0; k < length; ++k) flatten(*values, begin + k, level + 1, floating, shape, ints, floats);
}

json to_json(const arrow::Array& a, int64_t i) {
  if (a.IsNull(i)) return nullptr;
  const auto id = a.type_id();
  if (id == arrow::Type::BOOL) return static_cast<const arrow::BooleanArray&>(a).Value(i);
  if (id == arrow::Type::UINT64) return value<arrow::UInt64Type>(a, i);
  if (arrow::is_integer(id)) return int_at(a, i);
  if (arrow::is_floating(id)) return float_at(a, i);
  if (id == arrow::Type::STRING) return std::string(static_cast<const arrow::StringArray&>(a).GetView(i));
  if (id == arrow::Type::LARGE_STRING) return std::string(static_cast<const arrow::LargeStringArray&>(a).GetView(i));
  if (id == arrow::Type::STRING_VIEW) return std::string(static_cast<const arrow::StringViewArray&>(a).GetView(i));
  if (id == arrow::Type::DICTIONARY) {
    const auto& d = static_cast<const arrow::DictionaryArray&>(a);
    return to_json(*d.dictionary(), d.GetValueIndex(i));
  }
  if (id == arrow::Type::STRUCT) {
    const auto& s = static_cast<const arrow::StructArray&>(a);
    json out = json::object();
    for (int f = 0; f < s.num_fields(); ++f) out[s.struct_type()->field(f)->name()] = to_json(*s.field(f), i);
    return out;
  }
  const arrow::Array* values = nullptr;
  int64_t begin = 0, length = 0;
  list_slice(a, i, values, begin, length);
  json out = json::array();
  for (int64_t k = 0; k < length; ++k) out.push_back(to_json(*values, begin + k));
  return out;
}

struct Column {
  std::string name;
  std::shared_ptr<arrow::ChunkedArray> data;  // every part's chunks, in order
  std::vector<int64_t> starts;                // the first row of each chunk
  bool tensor = false;
  bool floating = false;                      // tensor leaf values are floats
  size_t depth = 0;                           // list nesting: a tensor's number of dims
  at::ScalarType dtype = at::kLong;
};

class ArrowDataset : public Dataset {
 public:
  ArrowDataset(std::vector<Column> columns, std::vector<std::pair<std::string, int64_t>> files, int64_t rows, std::string origin)
      : columns_(std::move(columns)), files_(std::move(files)), rows_(rows), origin_(std::move(origin)) {
    for (const auto& c : columns_) (c.tensor ? fields_ : text_fields_).push_back(c.name);
    std::sort(fields_.begin(), fields_.end());  // as an Example's map orders them
  }
  int64_t size() const override { return rows_; }
  std::vector<std::string> fields() const override { return fields_; }
  std::vector<std::string> text_fields() const override { return text_fields_; }
  std::string describe() const override { return origin_; }

  Example get(int64_t index) const override {
    check(index);
    Example ex;
    for (const auto& c : columns_) {
      if (!c.tensor) continue;
      const auto [chunk, row] = locate(c, index);
      std::vector<int64_t> shape, ints;
      std::vector<double> floats;
      try {
        flatten(*chunk, row, 0, c.floating, shape, ints, floats);
      } catch (const std::exception& e) {  // std::invalid_argument, std::out_of_range
        throw DataError(where(index) + ", column '" + c.name + "' " + e.what(), file_of(index));
      }
      shape.resize(c.depth, 0);  // an empty list leaves its inner dims unseen: 0
      at::Tensor t = c.floating ? at::tensor(floats, at::kDouble) : at::tensor(ints, at::kLong);
      ex[c.name] = t.view(shape).to(c.dtype);
    }
    return ex;
  }

  nlohmann::ordered_json text(int64_t index) const override {
    check(index);
    json out = json::object();
    for (const auto& c : columns_) {
      if (c.tensor) continue;
      const auto [chunk, row] = locate(c, index);
      out[c.name] = to_json(*chunk, row);
    }
    return out;
  }

 private:
  void check(int64_t index) const {
    if (index < 0 || index >= rows_)
      throw DataError("index " + std::to_string(index) + " out of range for " + std::to_string(rows_) + " examples", origin_);
  }
  std::pair<const arrow::Array*, int64_t> locate(const Column& c, int64_t index) const {
    const size_t k = static_cast<size_t>(std::upper_bound(c.starts.begin(), c.starts.end(), index) - c.starts.begin()) - 1;
    return {c.data->chunk(static_cast<int>(k)).get(), index - c.starts[k]};
  }
  size_t part_of(int64_t index) const {
    auto it = std::upper_bound(files_.begin(), files_.end(), index, [](int64_t i, const auto& f) { return i < f.second; });
    return static_cast<size_t>(it - files_.begin()) - 1;
  }
  const std::string& file_of(int64_t index) const { return files_[part_of(index)].first; }
  std::string where(int64_t index) const { return "row " + std::to_string(index - files_[part_of(index)].second); }

  std::vector<Column> columns_;
  std::vector<std::pair<std::string, int64_t>> files_;  // path, its first row
  int64_t rows_;
  std::string origin_;
  std::vector<std::string> fields_, text_fields_;
};

std::string type_text(const arrow::DataType& type) { return type.ToString(); }

}  // namespace

void check_status(const arrow::Status& status, const std::string& where, const std::string& what) {
  if (status.ok()) return;
  std::string message = status.message();
  std::replace(message.begin(), message.end(), '\n', ' ');  // one line
  throw DataError(what + ": " + message, where);
}

std::vector<int> project(const arrow::Schema& schema, const ArrowOptions& options, const std::string& path) {
  std::vector<int> indices;
  if (options.columns.empty()) {
    for (int i = 0; i < schema.num_fields(); ++i) indices.push_back(i);
    return indices;
  }
  for (const auto& name : options.columns) {
    const int i = schema.GetFieldIndex(name);
    if (i < 0) {
      std::string have;
      for (const auto& f : schema.fields()) have += (have.empty() ? "" : ", ") + f->name();
      throw DataError("no column '" + name + "' (its columns: " + have + ")", path);
    }
    indices.push_back(i);
  }
  std::sort(indices.begin(), indices.end());
  indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
  return indices;
}

DatasetPtr make_arrow_dataset(std::vector<ArrowPart> parts, const ArrowOptions& options, std::string origin) {
  if (parts.empty()) throw DataError("no files", origin);
  const ArrowPart& first = parts.front();
  std::vector<Column> columns;
  for (int j = 0; j < first.schema->num_fields(); ++j) {
    const auto& field = first.schema->field(j);
    const auto& type = *field->type();
    Column c;
    c.name = field->name();
    int depth = 0;
    const Leaf leaf = tensor_leaf(type, depth);
    const std::string where = first.path;
    if (leaf == Leaf::kNone && !text_ok(type))
      throw DataError("column '" + c.name + "' has type " + type_text(type) +
                          ", which runner cannot represent (numbers, booleans, strings, and lists and structs of them;"
                          " leave it out with columns = {...})",
                      where);
    c.tensor = leaf != Leaf::kNone;
    c.floating = leaf == Leaf::kFloat;
    c.depth = static_cast<size_t>(depth);
    c.dtype = leaf == Leaf::kFloat ? at::kFloat : leaf == Leaf::kBool ? at::kBool : at::kLong;
    auto want = options.dtypes.find(c.name);
    if (want != options.dtypes.end()) {
      if (!c.tensor) throw DataError("column '" + c.name + "' holds " + type_text(type) + ", not numbers: dtypes cannot make it " + dtype_name(want->second), where);
      if (c.floating && !at::isFloatingType(want->second))
        throw DataError("column '" + c.name + "' holds floating-point values (" + type_text(type) + ") but dtypes asks for " +
                            dtype_name(want->second) + " (cast it in the data, or ask for a float dtype)",
                        where);
      c.dtype = want->second;
    }
    arrow::ArrayVector chunks;
    int64_t start = 0;
    for (const ArrowPart& p : parts) {
      const int k = p.schema->GetFieldIndex(c.name);
      if (k < 0) throw DataError("no column '" + c.name + "' (" + first.path + " has it)", p.path);
      if (!p.schema->field(k)->type()->Equals(type))
        throw DataError("column '" + c.name + "' is " + type_text(*p.schema->field(k)->type()) + " here but " + type_text(type) + " in " + first.path, p.path);
      int64_t row = 0;  // in this file
      for (const auto& chunk : p.columns[static_cast<size_t>(k)]->chunks()) {
        // A tensor cannot hold a null: say which row, before training starts.
        if (c.tensor && chunk->null_count() > 0)
          for (int64_t r = 0; r < chunk->length(); ++r)
            if (chunk->IsNull(r))
              throw DataError("row " + std::to_string(row + r) + ", column '" + c.name +
                                  "' is null, which a tensor cannot hold (fill or drop those rows, or leave the column out with columns = {...})",
                              p.path);
        row += chunk->length();
        if (chunk->length() == 0) continue;
        c.starts.push_back(start);
        chunks.push_back(chunk);
        start += chunk->length();
      }
    }
    c.data = std::make_shared<arrow::ChunkedArray>(std::move(chunks), field->type());
    columns.push_back(std::move(c));
  }
  std::vector<std::pair<std::string, int64_t>> files;
  int64_t rows = 0;
  for (const ArrowPart& p : parts) {
    files.emplace_back(p.path, rows);
    rows += p.rows;
  }
  if (rows == 0) throw DataError("no rows", origin);
  return std::make_shared<ArrowDataset>(std::move(columns), std::move(files), rows, std::move(origin));
}

std::vector<std::string> expand_paths(const std::string& path, const std::string& ext) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    for (const auto& e : fs::directory_iterator(path, ec)) {
      const std::string p = e.path().string();
      if (e.is_regular_file() && p.size() > ext.size() && p.compare(p.size() - ext.size(), ext.size(), ext) == 0) files.push_back(p);
    }
    if (files.empty()) throw DataError("no " + ext + " files in this folder", path);
  } else if (path.find_first_of("*?[") != std::string::npos) {
    glob_t g{};
    if (::glob(path.c_str(), 0, nullptr, &g) == 0)
      for (size_t i = 0; i < g.gl_pathc; ++i) files.emplace_back(g.gl_pathv[i]);
    globfree(&g);
    if (files.empty()) throw DataError("no file matches", path);
  } else {
    if (!fs::is_regular_file(path, ec)) throw DataError("no such file", path);
    files.push_back(path);
  }
  for (const auto& f : files) check_found_file(f);
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace runner::data
