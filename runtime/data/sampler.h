// Samplers give the order in which a DataLoader visits a dataset in one epoch.
// The random sampler reseeds from (seed, epoch) every epoch, like Accelerate's
// SeedableRandomSampler, so an epoch's order never depends on what ran before it: that is
// what makes resuming mid-run reproduce the uninterrupted order.
#pragma once
#include <cstdint>
#include <string>
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

// HF LengthGroupedSampler: a seeded permutation cut into mega-batches of
// mega_batch_mult × batch_size examples, each sorted by length (longest first), with the
// overall longest example moved to the very front so an out-of-memory shows up at once.
// `batch_size` is the examples per optimizer step (per-device batch × accumulation).
class LengthGroupedSampler : public Sampler {
 public:
  LengthGroupedSampler(std::vector<int64_t> lengths, int64_t batch_size, int64_t seed);
  std::vector<int64_t> order(int64_t epoch) const override;

 private:
  std::vector<int64_t> lengths_;
  int64_t batch_size_, seed_;
};

class Dataset;
// Lengths for grouping: the `length_column` field when examples have it, else the size of
// `input_field` (dim 0). A DataError names the dataset when neither exists.
std::vector<int64_t> example_lengths(const Dataset& ds, const std::string& length_column, const std::string& input_field);

}  // namespace runner::data
