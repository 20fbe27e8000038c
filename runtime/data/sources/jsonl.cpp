#include <cerrno>
#include <cstring>
#include <fstream>

#include "runtime/core/errors.h"
#include "runtime/data/sources/columns.h"
#include "runtime/data/sources/sources.h"

namespace runner::data {

DatasetPtr load_jsonl(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw DataError(std::string("cannot open: ") + std::strerror(errno), path);
  std::vector<nlohmann::json> rows;
  std::vector<size_t> line_of;
  std::string line;
  for (size_t n = 1; std::getline(in, line); ++n) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;  // blank lines are allowed
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded()) throw DataError("not valid JSON", path + ":" + std::to_string(n));
    if (!j.is_object()) throw DataError("each line must be a JSON object", path + ":" + std::to_string(n));
    rows.push_back(std::move(j));
    line_of.push_back(n);
  }
  if (rows.empty()) throw DataError("no examples (the file is empty)", path);
  return dataset_from_rows(rows, "data.jsonl(" + path + ")",
                           [&](size_t i) { return path + ":" + std::to_string(line_of[i]); });
}

}  // namespace runner::data
