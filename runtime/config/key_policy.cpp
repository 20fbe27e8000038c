#include "runtime/config/key_policy.h"

#include <algorithm>
#include <sstream>

#include "runtime/core/errors.h"
#include "runtime/core/text.h"

namespace runner::config {

using nlohmann::json;

namespace {

const json* find_path(const json& config, const std::string& path) {
  const json* node = &config;
  std::istringstream parts(path);
  for (std::string part; std::getline(parts, part, '.');) {
    if (!node->is_object() || !node->contains(part)) return nullptr;
    node = &(*node)[part];
  }
  return node;
}

bool is_neutral(const json& value_in, const KeyPolicy& p) {
  if (value_in.is_null() || value_in == "auto") return true;
  json value = value_in;  // HF's FSDP flags may be the strings "true" / "false"
  if (value.is_string() && (to_lower(value.get<std::string>()) == "true" || to_lower(value.get<std::string>()) == "false"))
    value = to_lower(value.get<std::string>()) == "true";
  for (const auto& n : p.neutral) {
    if (value == n || value_in == n) return true;
    if (value.is_number() && n.is_number() && value.get<double>() == n.get<double>()) return true;
  }
  return false;
}

}  // namespace

void apply_key_policies(const json& config, const std::vector<KeyPolicy>& table, const std::string& prefix, const std::string& where,
                        std::vector<std::string>& warnings) {
  std::vector<std::pair<std::string, std::string>> noops;  // (why, keys) in table order
  for (const auto& p : table) {
    const json* v = find_path(config, p.path);
    if (!v || is_neutral(*v, p)) continue;
    if (p.refuse) throw ArgumentError(prefix + p.path + " = " + v->dump() + ": not supported: " + p.why, where);
    auto it = std::find_if(noops.begin(), noops.end(), [&](const auto& n) { return n.first == p.why; });
    if (it == noops.end()) noops.emplace_back(p.why, prefix + p.path);
    else it->second += ", " + prefix + p.path;
  }
  for (const auto& [why, keys] : noops) warnings.push_back(keys + (keys.find(',') == std::string::npos ? " has" : " have") + " no effect: " + why);
}

}  // namespace runner::config
