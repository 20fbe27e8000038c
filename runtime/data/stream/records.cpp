#include "runtime/data/stream/records.h"

#include <fstream>

#include <nlohmann/json.hpp>

#include "runtime/core/errors.h"

namespace runner::data {

namespace {

// Lines of a file from a byte offset: the stream seeks there, so resuming reads no earlier line.
class LineReader : public RecordReader {
 public:
  LineReader(const std::string& path, RecordPos start) : path_(path), in_(path, std::ios::binary), offset_(start.major) {
    if (!in_) throw DataError("data.stream: cannot open the shard", path);
    in_.seekg(0, std::ios::end);
    const int64_t size = in_.tellg();
    if (offset_ < 0 || offset_ > size)
      throw DataError("data.stream: saved offset " + std::to_string(offset_) + " is past the end of the shard (" + std::to_string(size) +
                      " bytes): was the file changed since the checkpoint?", path);
    in_.seekg(offset_);
  }
  RecordPos position() const override { return {offset_, 0}; }

 protected:
  // The next non-empty line without its "\n" / "\r\n", and its 1-based number is not known
  // (the reader may start mid-file), so errors name the byte offset.
  bool next_line(std::string& line, int64_t& at) {
    while (true) {
      at = offset_;
      if (!std::getline(in_, line)) return false;
      offset_ += static_cast<int64_t>(line.size()) + (in_.eof() ? 0 : 1);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (!line.empty()) return true;
    }
  }
  std::string path_;

 private:
  std::ifstream in_;
  int64_t offset_;
};

class TextRecords : public LineReader {
 public:
  using LineReader::LineReader;
  bool next(std::string& record) override {
    int64_t at = 0;
    return next_line(record, at);
  }
};

class JsonlRecords : public LineReader {
 public:
  JsonlRecords(const std::string& path, std::string column, RecordPos start) : LineReader(path, start), column_(std::move(column)) {}
  bool next(std::string& record) override {
    std::string line;
    int64_t at = 0;
    if (!next_line(line, at)) return false;
    const std::string where = path_ + " (byte " + std::to_string(at) + ")";
    nlohmann::json row;
    try {
      row = nlohmann::json::parse(line);
    } catch (const nlohmann::json::parse_error& e) {
      throw DataError(std::string("data.stream: not a JSON line: ") + e.what(), where);
    }
    if (!row.is_object() || !row.contains(column_))
      throw DataError("data.stream: no key '" + column_ + "' in this line (column = \"" + column_ + "\")", where);
    if (!row[column_].is_string()) throw DataError("data.stream: key '" + column_ + "' is " + row[column_].type_name() + ", expected a string", where);
    record = row[column_].get<std::string>();
    return true;
  }

 private:
  std::string column_;
};

}  // namespace

std::unique_ptr<RecordReader> open_records(const std::string& format, const std::string& path, const std::string& column, RecordPos start) {
  if (format == "text") return std::make_unique<TextRecords>(path, start);
  if (format == "json" || format == "jsonl") return std::make_unique<JsonlRecords>(path, column, start);
  if (format == "parquet") return open_parquet_records(path, column, start);
  if (format == "arrow") return open_arrow_records(path, column, start);
  throw RecipeError("data.stream: format \"" + format + "\" cannot be streamed; expected text, jsonl, parquet or arrow");
}

}  // namespace runner::data
