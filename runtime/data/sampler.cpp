#include "runtime/data/sampler.h"

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

}  // namespace runner::data
