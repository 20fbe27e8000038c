#include "runtime/data/stream/records.h"

#include <algorithm>
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
    do {  // a line of only blanks is no record (data.jsonl and HF's json loader skip it too)
      if (!next_line(line, at)) return false;
    } while (line.find_first_not_of(" \t") == std::string::npos);
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

// A token file's ids in chunks of `chunk` tokens, each record their raw bytes (Stream::encode
// reads them back), from a byte offset.
class TokenChunks : public RecordReader {
 public:
  TokenChunks(const std::string& path, int width, int64_t chunk, RecordPos start)
      : path_(path), in_(path, std::ios::binary), width_(width), chunk_(chunk), offset_(start.major) {
    if (!in_) throw DataError("data.stream: cannot open the shard", path);
    in_.seekg(0, std::ios::end);
    size_ = in_.tellg();
    if (size_ % width_ != 0)
      throw DataError("data.stream: " + std::to_string(size_) + " bytes is not a whole number of " + std::to_string(width_) +
                      "-byte tokens (truncated, or another dtype?)", path);
    if (offset_ < 0 || offset_ > size_ || offset_ % width_ != 0)
      throw DataError("data.stream: saved offset " + std::to_string(offset_) + " does not fit the shard: was the file changed since the checkpoint?", path);
    in_.seekg(offset_);
  }
  bool next(std::string& record) override {
    const int64_t n = std::min<int64_t>(chunk_ * width_, size_ - offset_);
    if (n <= 0) return false;
    record.resize(static_cast<size_t>(n));
    if (!in_.read(record.data(), n)) throw DataError("data.stream: cannot read at byte " + std::to_string(offset_), path_);
    offset_ += n;
    return true;
  }
  RecordPos position() const override { return {offset_, 0}; }

 private:
  std::string path_;
  std::ifstream in_;
  int width_;
  int64_t chunk_, offset_, size_ = 0;
};

}  // namespace

std::unique_ptr<RecordReader> open_records(const RecordFormat& f, const std::string& path, RecordPos start) {
  if (f.format == "text") return std::make_unique<TextRecords>(path, start);
  if (f.format == "json" || f.format == "jsonl") return std::make_unique<JsonlRecords>(path, f.column, start);
  if (f.format == "parquet") return open_parquet_records(path, f.column, start);
  if (f.format == "arrow") return open_arrow_records(path, f.column, start);
  if (f.format == "token_bin") return std::make_unique<TokenChunks>(path, f.token_bytes, f.chunk_tokens, start);
  throw RecipeError("data.stream: format \"" + f.format + "\" cannot be streamed; expected text, jsonl, parquet, arrow or token_bin");
}

}  // namespace runner::data
