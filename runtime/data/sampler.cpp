#include "runtime/data/sampler.h"

#include "runtime/core/errors.h"
#include "runtime/data/dataset.h"

#include <algorithm>
#include <numeric>

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

namespace runner::data {

std::vector<int64_t> SequentialSampler::order(int64_t) const {
  std::vector<int64_t> idx(static_cast<size_t>(n_));
  std::iota(idx.begin(), idx.end(), 0);
  return idx;
}

std::vector<int64_t> RandomSampler::order(int64_t epoch) const {
  // A private generator: the global RNG (dropout, init) is untouched by data shuffling.
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(static_cast<uint64_t>(seed_ + epoch));
  at::Tensor perm = at::randperm(n_, gen, at::TensorOptions().dtype(at::kLong));
  const int64_t* p = perm.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + n_);
}

LengthGroupedSampler::LengthGroupedSampler(std::vector<int64_t> lengths, int64_t batch_size, int64_t seed)
    : lengths_(std::move(lengths)), batch_size_(std::max<int64_t>(1, batch_size)), seed_(seed) {}

std::vector<int64_t> LengthGroupedSampler::order(int64_t epoch) const {
  const int64_t n = static_cast<int64_t>(lengths_.size());
  const std::vector<int64_t> perm = RandomSampler(n, seed_).order(epoch);
  const int64_t mult = std::max<int64_t>(1, std::min<int64_t>(n / (batch_size_ * 4), 50));
  const int64_t mega = mult * batch_size_;
  std::vector<std::vector<int64_t>> groups;
  for (int64_t i = 0; i < n; i += mega) {
    std::vector<int64_t> g(perm.begin() + i, perm.begin() + std::min(n, i + mega));
    // stable: equal lengths keep their shuffled order, as Python's sorted does
    std::stable_sort(g.begin(), g.end(), [&](int64_t a, int64_t b) { return lengths_[a] > lengths_[b]; });
    groups.push_back(std::move(g));
  }
  if (groups.empty()) return {};
  size_t longest = 0;
  for (size_t k = 1; k < groups.size(); ++k)
    if (lengths_[groups[k][0]] > lengths_[groups[longest][0]]) longest = k;
  std::swap(groups[0][0], groups[longest][0]);
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(n));
  for (const auto& g : groups) out.insert(out.end(), g.begin(), g.end());
  return out;
}

ShardedSampler::ShardedSampler(std::shared_ptr<const Sampler> base, int64_t batch_size, int64_t rank, int64_t world, bool drop_last)
    : base_(std::move(base)), batch_size_(batch_size), rank_(rank), world_(world), drop_last_(drop_last) {
  if (!base_) throw DataError("ShardedSampler: no base sampler");
  if (batch_size_ < 1) throw DataError("ShardedSampler: batch size must be >= 1 (got " + std::to_string(batch_size_) + ")");
  if (world_ < 1 || rank_ < 0 || rank_ >= world_)
    throw DataError("ShardedSampler: rank " + std::to_string(rank_) + " is not in [0, " + std::to_string(world_) + ")");
}

std::vector<int64_t> ShardedSampler::order(int64_t epoch) const {
  const std::vector<int64_t> global = base_->order(epoch);
  const auto n = static_cast<int64_t>(global.size());
  const int64_t step = batch_size_ * world_;
  const int64_t end = drop_last_ ? n / step * step : n;
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(end / world_ + batch_size_));
  for (int64_t k = 0; k < end; k += step) {
    const int64_t lo = std::min(end, k + rank_ * batch_size_), hi = std::min(end, lo + batch_size_);
    out.insert(out.end(), global.begin() + lo, global.begin() + hi);
  }
  return out;
}

std::vector<int64_t> example_lengths(const Dataset& ds, const std::string& length_column, const std::string& input_field) {
  const auto fields = ds.fields();
  const bool has_length = std::find(fields.begin(), fields.end(), length_column) != fields.end();
  const bool has_input = std::find(fields.begin(), fields.end(), input_field) != fields.end();
  if (!has_length && !has_input)
    throw DataError("group_by_length needs a '" + length_column + "' field or an '" + input_field + "' field to measure", ds.describe());
  std::vector<int64_t> lengths(static_cast<size_t>(ds.size()));
  for (int64_t i = 0; i < ds.size(); ++i) {
    const Example e = ds.get(i);
    const at::Tensor& t = e.at(has_length ? length_column : input_field);
    lengths[static_cast<size_t>(i)] = has_length ? t.item<int64_t>() : (t.dim() == 0 ? 1 : t.size(0));
  }
  return lengths;
}

}  // namespace runner::data
