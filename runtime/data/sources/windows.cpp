#include "runtime/data/sources/windows.h"

#include "runtime/core/errors.h"
#include "runtime/core/splitmix.h"

namespace runner::data {

namespace {

// Uniform in [0, bound] by rejection, so no offset is favoured: values below 2^64 mod range
// are redrawn, leaving a multiple of range equally likely values.
uint64_t uniform_upto(uint64_t& state, uint64_t bound) {
  if (bound == UINT64_MAX) return splitmix64(state);
  const uint64_t range = bound + 1;
  const uint64_t threshold = (0 - range) % range;
  uint64_t x;
  do x = splitmix64(state);
  while (x < threshold);
  return x % range;
}

}  // namespace

WindowPlan::WindowPlan(int64_t num_tokens, const WindowOptions& o, const std::string& where)
    : tokens_(num_tokens), block_(o.block_size), stride_(o.stride == 0 ? o.block_size : o.stride), size_(0), seed_(o.seed),
      random_(o.random_windows) {
  if (block_ < 1) throw DataError("block_size must be >= 1 (got " + std::to_string(block_) + ")", where);
  if (stride_ < 1) throw DataError("stride must be >= 1 (got " + std::to_string(o.stride) + ")", where);
  if (o.num_samples < 0) throw DataError("num_samples must be >= 0", where);
  if (tokens_ < block_)
    throw DataError(std::to_string(tokens_) + " tokens, fewer than one window of block_size " + std::to_string(block_), where);
  if (random_) {
    size_ = o.num_samples > 0 ? o.num_samples : tokens_ / block_;
  } else {
    size_ = (tokens_ - block_) / stride_ + 1;
    if (o.num_samples > 0 && o.num_samples < size_) size_ = o.num_samples;
  }
}

int64_t WindowPlan::offset(int64_t index) const {
  if (!random_) return index * stride_;
  uint64_t state = static_cast<uint64_t>(seed_);
  state = splitmix64(state) ^ static_cast<uint64_t>(index);
  return static_cast<int64_t>(uniform_upto(state, static_cast<uint64_t>(tokens_ - block_)));
}

Example TokenWindowDataset::get(int64_t index) const {
  if (index < 0 || index >= size())
    throw DataError("index " + std::to_string(index) + " out of range for " + std::to_string(size()) + " examples", origin_);
  const int64_t block = plan_.block_size();
  at::Tensor ids = at::empty({block}, at::kLong);
  read_tokens(plan_.offset(index), block, ids.data_ptr<int64_t>());
  // Separate tensors: a collator or model that edits labels in place must not change the inputs.
  return {{"input_ids", ids}, {"labels", ids.clone()}};
}

bool TokenWindowDataset::gather(const std::vector<int64_t>& indices, Batch& out) const {
  const int64_t block = plan_.block_size();
  at::Tensor ids = at::empty({static_cast<int64_t>(indices.size()), block}, at::kLong);
  int64_t* p = ids.data_ptr<int64_t>();
  for (size_t k = 0; k < indices.size(); ++k) {
    const int64_t i = indices[k];
    if (i < 0 || i >= size())
      throw DataError("index " + std::to_string(i) + " out of range for " + std::to_string(size()) + " examples", origin_);
    read_tokens(plan_.offset(i), block, p + static_cast<int64_t>(k) * block);
  }
  out.clear();
  out["input_ids"] = ids;
  out["labels"] = ids.clone();
  return true;
}

}  // namespace runner::data
