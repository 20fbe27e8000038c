#include "runtime/train/param_groups.h"

#include <algorithm>
#include <set>

#include "runtime/core/regex.h"
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
  static const Regex no_decay_names("bias|layernorm|rmsnorm|(^|\\.)norm($|\\.)|_norm($|\\.)");
  std::set<std::string> in_norm;
  collect_norm_params(model, "", in_norm);
  std::vector<bool> mask;
  for (const auto& [name, t] : params) {
    const std::string lower = to_lower(name);
    bool no_decay = in_norm.count(name) > 0;
    no_decay = no_decay || no_decay_names.search(lower);
    mask.push_back(no_decay);
  }
  return mask;
}

}  // namespace runner::train
