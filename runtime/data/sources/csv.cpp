#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "runtime/core/errors.h"
#include "runtime/data/sources/columns.h"
#include "runtime/data/sources/sources.h"

namespace runner::data {

namespace {

// RFC 4180 fields: commas separate, double quotes enclose, "" is a literal quote.
std::vector<std::string> split_csv(const std::string& line, const std::string& where) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') cur += '"', ++i;
      else if (c == '"') quoted = false;
      else cur += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.push_back(cur), cur.clear();
    } else if (c != '\r') {
      cur += c;
    }
  }
  if (quoted) throw DataError("unterminated quoted field", where);
  out.push_back(cur);
  return out;
}

// One record: a line, and the lines after it while a quoted field is still open (RFC 4180
// lets a quoted field hold line breaks). `line` counts physical lines; false at the end.
bool read_record(std::istream& in, std::string& record, size_t& line) {
  record.clear();
  std::string part;
  bool open = false;
  while (std::getline(in, part)) {
    ++line;
    if (!part.empty() && part.back() == '\r') part.pop_back();
    record += (open ? "\n" : "") + part;
    for (char c : part) open = c == '"' ? !open : open;  // "" toggles twice: a literal quote
    if (!open) return true;
  }
  return open;  // an unterminated quote at the end: split_csv names it
}

}  // namespace

DatasetPtr load_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw DataError(std::string("cannot open: ") + std::strerror(errno), path);
  std::string line;
  size_t physical = 0;
  if (!read_record(in, line, physical)) throw DataError("empty file (expected a header row)", path);
  if (line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);  // a UTF-8 byte-order mark (Excel's exports): not part of the first name
  const auto header = split_csv(line, path + ":1");
  std::vector<nlohmann::json> rows;
  std::vector<size_t> line_of;
  for (size_t n = physical + 1; read_record(in, line, physical); n = physical + 1) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = path + ":" + std::to_string(n);
    auto cells = split_csv(line, where);
    if (cells.size() != header.size())
      throw DataError(std::to_string(cells.size()) + " columns, the header has " + std::to_string(header.size()), where);
    nlohmann::json row = nlohmann::json::object();
    for (size_t c = 0; c < cells.size(); ++c) {
      const std::string& s = cells[c];
      char* end = nullptr;
      errno = 0;
      long long iv = std::strtoll(s.c_str(), &end, 10);
      if (!s.empty() && *end == '\0' && errno == 0) {
        row[header[c]] = static_cast<int64_t>(iv);
        continue;
      }
      // As datasets' csv loader infers: numbers, else the cell is text (the whole column then
      // is a text field); an empty cell is a missing value.
      if (s.empty()) {
        row[header[c]] = nullptr;
        continue;
      }
      double dv = std::strtod(s.c_str(), &end);
      if (*end != '\0') row[header[c]] = s;
      else row[header[c]] = dv;
    }
    rows.push_back(std::move(row));
    line_of.push_back(n);
  }
  if (rows.empty()) throw DataError("no examples (only a header row)", path);
  return dataset_from_rows(rows, "data.csv(" + path + ")", [&](size_t i) { return path + ":" + std::to_string(line_of[i]); });
}

}  // namespace runner::data
