// data.hf_dataset: a folder `datasets` wrote with save_to_disk, read as load_from_disk reads it.
// A Dataset folder: state.json lists its data files ("_data_files", Arrow IPC streams, in
// order), dataset_info.json its features. A DatasetDict folder: dataset_dict.json lists the
// splits, each a Dataset folder of that name.
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "runtime/core/errors.h"
#include "runtime/core/found_files.h"
#include "runtime/data/sources/arrow_table.h"

namespace runner::data {

namespace {

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw DataError("cannot read", path);
  auto j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) throw DataError("not a JSON object", path);
  return j;
}

DatasetPtr load_split(const std::string& folder, const std::string& name, const ArrowOptions& options) {
  const std::string state_path = folder + "/state.json";
  const nlohmann::json state = read_json(state_path);
  if (!state.contains("_data_files") || !state["_data_files"].is_array())
    throw DataError("no \"_data_files\" list (is this a datasets save_to_disk folder?)", state_path);
  if (state["_data_files"].empty())
    throw DataError("this split has no rows (\"_data_files\" is empty): leave it out, or give data.hf_dataset another split", state_path);
  // An unflattened indices mapping would make the rows a selection of the files' rows.
  if (state.contains("_indices_data_files") && !state["_indices_data_files"].is_null())
    throw DataError("has an indices mapping (\"_indices_data_files\"); save it again with datasets >= 2, which flattens it", state_path);
  std::vector<std::string> files;
  for (const auto& f : state["_data_files"]) {
    if (!f.is_object() || !f.contains("filename") || !f["filename"].is_string())
      throw DataError("each \"_data_files\" entry needs a \"filename\"", state_path);
    // datasets writes plain names in the folder; a path would read files outside it (past a
    // recipe's sandbox, too).
    const std::string file = f["filename"].get<std::string>();
    if (file.empty() || file.find('/') != std::string::npos || file == "." || file == "..")
      throw DataError("\"_data_files\" names \"" + file + "\", not a file of this folder", state_path);
    files.push_back(folder + "/" + file);
    check_found_file(files.back());
  }
  const std::string origin = "data.hf_dataset(" + folder + (name.empty() ? "" : ", " + name) + ")";
  return load_arrow_files(files, options, origin);
}

}  // namespace

std::vector<std::pair<std::string, DatasetPtr>> load_hf_dataset(const std::string& folder, const std::string& split,
                                                                const ArrowOptions& options) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) throw DataError("no such folder (expected a datasets save_to_disk folder)", folder);
  if (fs::exists(folder + "/dataset_dict.json", ec)) {
    const std::string dict_path = folder + "/dataset_dict.json";
    const nlohmann::json dict = read_json(dict_path);
    if (!dict.contains("splits") || !dict["splits"].is_array()) throw DataError("no \"splits\" list", dict_path);
    std::vector<std::string> names;
    for (const auto& s : dict["splits"])
      if (s.is_string()) names.push_back(s);
    std::vector<std::pair<std::string, DatasetPtr>> out;
    for (const auto& name : names)
      if (split.empty() || name == split) out.emplace_back(name, load_split(folder + "/" + name, name, options));
    if (out.empty()) {
      std::string have;
      for (const auto& n : names) have += (have.empty() ? "" : ", ") + n;
      throw DataError("no split \"" + split + "\" (its splits: " + have + ")", dict_path);
    }
    return out;
  }
  if (!fs::exists(folder + "/state.json", ec))
    throw DataError("neither dataset_dict.json nor state.json here (expected a datasets save_to_disk folder)", folder);
  if (!split.empty()) {
    // A Dataset folder remembers its split; asking for another one is a mistake worth saying.
    const nlohmann::json state = read_json(folder + "/state.json");
    const bool named = state.contains("_split") && state["_split"].is_string();
    if (named && state["_split"].get<std::string>() != split)
      throw DataError("is the \"" + state["_split"].get<std::string>() + "\" split, not \"" + split + "\"", folder);
    if (!named) throw DataError("is a single Dataset (no dataset_dict.json): leave split out", folder);
  }
  return {{split, load_split(folder, split, options)}};
}

}  // namespace runner::data
