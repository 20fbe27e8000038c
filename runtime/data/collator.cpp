#include "runtime/data/collator.h"

#include "runtime/core/errors.h"

namespace runner::data {

namespace {
std::string shape_str(const at::Tensor& t) {
  std::string s = "[";
  for (int64_t i = 0; i < t.dim(); ++i) s += (i ? ", " : "") + std::to_string(t.size(i));
  return s + "]";
}
std::string renamed(const std::string& name) { return name == "label" || name == "label_ids" ? "labels" : name; }
}  // namespace

Batch default_collate(const std::vector<Example>& examples) {
  if (examples.empty()) throw DataError("cannot collate an empty list of examples");
  const Example& first = examples.front();
  Batch batch;
  for (const auto& [name, t0] : first) {
    std::vector<at::Tensor> parts;
    parts.reserve(examples.size());
    for (size_t i = 0; i < examples.size(); ++i) {
      auto it = examples[i].find(name);
      if (it == examples[i].end())
        throw DataError("example " + std::to_string(i) + " has no field '" + name + "' (the first example has it)");
      if (!it->second.sizes().equals(t0.sizes()))
        throw DataError("field '" + name + "': examples have different shapes " + shape_str(t0) + " and " + shape_str(it->second) +
                        "; variable-length fields need a padding collator");
      parts.push_back(it->second);
    }
    batch[renamed(name)] = at::stack(parts, 0);
  }
  return batch;
}

int64_t batch_size_of(const Batch& batch) {
  for (const auto& [name, t] : batch)
    if (t.dim() > 0) return t.size(0);
  return 0;
}

}  // namespace runner::data
