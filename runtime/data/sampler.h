// Samplers give the order in which a DataLoader visits a dataset in one epoch.
// The random sampler reseeds from (seed, epoch) every epoch, like Accelerate's
// SeedableRandomSampler, so an epoch's order never depends on what ran before it: that is
// what makes resuming mid-run reproduce the uninterrupted order.
#pragma once
#include <cstdint>
#include <memory>
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

// One rank's share of a base order for data-parallel training. With a per-rank batch of B
// examples and `world` ranks, global step k covers the base order's elements
// [k·B·world, (k+1)·B·world) and rank r takes the r-th slice of B of them, so what each
// optimizer step sees does not depend on how many ranks share it: the union over ranks of
// step k is batch k of a single process with batch size B·world. When the dataset is not a
// multiple of B·world, the last global batch is cut in order (later ranks get a shorter
// or no last batch), unless drop_last drops that partial global batch on every rank.
class ShardedSampler : public Sampler {
 public:
  ShardedSampler(std::shared_ptr<const Sampler> base, int64_t batch_size, int64_t rank, int64_t world, bool drop_last = false);
  std::vector<int64_t> order(int64_t epoch) const override;

 private:
  std::shared_ptr<const Sampler> base_;
  int64_t batch_size_, rank_, world_;
  bool drop_last_;
};

class Dataset;
// Lengths for grouping: the `length_column` field when examples have it, else the size of
// `input_field` (dim 0). A DataError names the dataset when neither exists.
std::vector<int64_t> example_lengths(const Dataset& ds, const std::string& length_column, const std::string& input_field);

}  // namespace runner::data
