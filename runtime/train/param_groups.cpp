#include "runtime/train/param_groups.h"

#include <algorithm>
#include <regex>
#include <set>

#include "runtime/core/text.h"

namespace runner::train {

namespace {

void collect_norm_params(const models::Module& m, const std::string& prefix, std::set<std::string>& out) {
  const bool is_norm = m.type_name() == "LayerNorm" || m.type_name() == "RMSNorm";
  for (const auto& [name, t] : m.named_parameters())
    if (is_norm && name.find('.') == std::string::npos) out.insert(prefix + name);
  for (const auto& [name, c] : m.children()) collect_norm_params(*c, prefix + name + ".", out);
}

}  // namespace

std::vector<bool> no_decay_mask(const models::Module& model, const models::NamedTensorList& params) {
  static const std::regex patterns[] = {std::regex("bias"), std::regex("layernorm"), std::regex("rmsnorm"),
                                        std::regex("(^|\\.)norm($|\\.)"), std::regex("_norm($|\\.)")};
  std::set<std::string> in_norm;
  collect_norm_params(model, "", in_norm);
  std::vector<bool> mask;
  for (const auto& [name, t] : params) {
    const std::string lower = to_lower(name);
    bool no_decay = in_norm.count(name) > 0;
    for (const auto& re : patterns) no_decay = no_decay || std::regex_search(lower, re);
    mask.push_back(no_decay);
  }
  return mask;
}

}  // namespace runner::train
