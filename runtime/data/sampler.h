// Samplers give the order in which a DataLoader visits a dataset in one epoch.
// The random sampler reseeds from (seed, epoch) every epoch, like Accelerate's
// SeedableRandomSampler, so an epoch's order never depends on what ran before it: that is
// what makes resuming mid-run reproduce the uninterrupted order.
#pragma once
#include <cstdint>
#include <vector>

namespace runner::data {

class Sampler {
 public:
  virtual ~Sampler() = default;
  virtual std::vector<int64_t> order(int64_t epoch) const = 0;
};

class SequentialSampler : public Sampler {
 public:
  explicit SequentialSampler(int64_t n) : n_(n) {}
  std::vector<int64_t> order(int64_t epoch) const override;

 private:
  int64_t n_;
};

class RandomSampler : public Sampler {
 public:
  RandomSampler(int64_t n, int64_t seed) : n_(n), seed_(seed) {}
  std::vector<int64_t> order(int64_t epoch) const override;

 private:
  int64_t n_, seed_;
};

}  // namespace runner::data
