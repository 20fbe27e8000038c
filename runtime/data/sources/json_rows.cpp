#include "runtime/data/sources/json_rows.h"

#include <fstream>

#include "runtime/core/errors.h"

namespace runner::data {

using json = nlohmann::ordered_json;  // key order reaches Jinja templates (tojson, items())

void for_each_json_row(const std::string& path, const DatasetPtr& dataset, const std::string& needs,
                       const std::function<void(const json&, const std::string&)>& row) {
  if (dataset) {
    if (dataset->text_fields().empty()) throw DataError("has no text fields (strings, a messages column); needs " + needs, dataset->describe());
    for (int64_t i = 0; i < dataset->size(); ++i) {
      const json fields = dataset->text(i);  // named: a range-for over a temporary's items() dangles
      json j = json::object();
      for (const auto& [k, v] : fields.items())
        if (!v.is_null()) j[k] = v;
      row(j, dataset->describe() + " row " + std::to_string(i));
    }
    return;
  }
  std::ifstream in(path);
  if (!in) throw DataError("cannot read (missing?)", path);
  std::string line;
  for (int64_t n = 1; std::getline(in, line); ++n) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = path + ":" + std::to_string(n);
    const json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) throw DataError("not a JSON object", where);
    row(j, where);
  }
}

json tools_of(const json& j, const std::string& where) {
  if (!j.contains("tools") || j["tools"].is_null()) return nullptr;
  if (!j["tools"].is_string()) return j["tools"];
  const json parsed = json::parse(j["tools"].get<std::string>(), nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) throw DataError("\"tools\" is a string but not JSON (a list of tool definitions)", where);
  return parsed;
}

json kwargs_of(const json& j, const std::string& where) {
  if (!j.contains("chat_template_kwargs") || j["chat_template_kwargs"].is_null()) return nullptr;
  if (!j["chat_template_kwargs"].is_object()) throw DataError("\"chat_template_kwargs\" must be an object of template variables", where);
  return j["chat_template_kwargs"];
}

}  // namespace runner::data
