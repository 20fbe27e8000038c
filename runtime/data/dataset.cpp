#include "runtime/data/dataset.h"

#include <algorithm>

#include "runtime/core/errors.h"

namespace runner::data {

namespace {
// FNV-1a, 64 bits: not cryptographic, only a comparison between ranks.
void mix(uint64_t& h, const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ULL;
}

void check_index(int64_t index, int64_t size, const std::string& origin) {
  if (index < 0 || index >= size)
    throw DataError("index " + std::to_string(index) + " out of range for " + std::to_string(size) + " examples", origin);
}
}  // namespace

TensorDataset::TensorDataset(Batch columns, std::string origin) : columns_(std::move(columns)), origin_(std::move(origin)) {
  if (columns_.empty()) throw DataError("needs at least one field", origin_);
  bool first = true;
  for (const auto& [name, t] : columns_) {
    if (!t.defined() || t.dim() == 0) throw DataError("field '" + name + "' must have a first dimension indexing examples", origin_);
    if (first) size_ = t.size(0), first = false;
    if (t.size(0) != size_)
      throw DataError("field '" + name + "' has " + std::to_string(t.size(0)) + " rows but '" + columns_.begin()->first + "' has " +
                      std::to_string(size_), origin_);
  }
  for (auto& [name, t] : columns_) t = t.detach().contiguous();
}

Example TensorDataset::get(int64_t index) const {
  check_index(index, size_, origin_);
  Example e;
  for (const auto& [name, t] : columns_) e[name] = t.select(0, index);
  return e;
}

std::vector<std::string> TensorDataset::fields() const {
  std::vector<std::string> names;
  for (const auto& [name, t] : columns_) names.push_back(name);
  return names;
}

bool TensorDataset::gather(const std::vector<int64_t>& indices, Batch& out) const {
  at::Tensor idx = at::tensor(indices, at::kLong);
  out.clear();
  for (const auto& [name, t] : columns_) out[name] = t.index_select(0, idx);
  return true;
}

ExampleListDataset::ExampleListDataset(std::vector<Example> examples, std::string origin)
    : examples_(std::move(examples)), origin_(std::move(origin)) {}

Example ExampleListDataset::get(int64_t index) const {
  check_index(index, size(), origin_);
  return examples_[static_cast<size_t>(index)];
}

std::vector<std::string> ExampleListDataset::fields() const {
  std::vector<std::string> names;
  if (!examples_.empty())
    for (const auto& [name, t] : examples_.front()) names.push_back(name);
  return names;
}

uint64_t fingerprint(const Dataset& ds, int64_t samples) {
  uint64_t h = 0xcbf29ce484222325ULL;
  const int64_t n = ds.size();
  mix(h, &n, sizeof n);
  const int64_t k = std::min(n, samples);
  for (int64_t j = 0; j < k; ++j) {
    const int64_t index = k == 1 ? 0 : j * (n - 1) / (k - 1);
    for (const auto& [name, t] : ds.get(index)) {
      mix(h, name.data(), name.size());
      if (!t.defined()) continue;
      const at::Tensor c = t.detach().to(at::kCPU).contiguous();
      const int type = static_cast<int>(c.scalar_type());
      mix(h, &type, sizeof type);
      mix(h, c.sizes().data(), c.sizes().size() * sizeof(int64_t));
      mix(h, c.data_ptr(), c.nbytes());
    }
  }
  return h;
}

}  // namespace runner::data
