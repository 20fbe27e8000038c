// Dataset transforms with HF `datasets` semantics: select, shuffle, train_test_split,
// filter and map. Each returns a new dataset that reads through to its base (nothing is
// copied); `base()` lets callers reach the source underneath (a text dataset's vocabulary).
// Indices are 0-based.
#pragma once
#include <functional>
#include <vector>

#include "runtime/data/dataset.h"

namespace runner::data {

// A dataset that reads through to another.
class DatasetView : public Dataset {
 public:
  const DatasetPtr& base() const { return base_; }

 protected:
  explicit DatasetView(DatasetPtr base) : base_(std::move(base)) {}
  DatasetPtr base_;
};

// The base's examples at `indices`, in that order (repeats allowed).
class IndexView : public DatasetView {
 public:
  IndexView(DatasetPtr base, std::vector<int64_t> indices, std::string origin);  // DataError on an index out of range
  int64_t size() const override { return static_cast<int64_t>(indices_.size()); }
  Example get(int64_t index) const override;
  std::vector<std::string> fields() const override { return base_->fields(); }
  bool gather(const std::vector<int64_t>& indices, Batch& out) const override;
  bool thread_safe() const override { return base_->thread_safe(); }
  std::string describe() const override { return origin_; }
  std::vector<std::string> text_fields() const override { return base_->text_fields(); }
  nlohmann::ordered_json text(int64_t index) const override;
  const std::vector<int64_t>& indices() const { return indices_; }

 private:
  std::vector<int64_t> indices_;
  std::string origin_;
};

// Dataset.select(indices) and select(range(start, stop)).
DatasetPtr select(const DatasetPtr& ds, std::vector<int64_t> indices);
DatasetPtr select_range(const DatasetPtr& ds, int64_t start, int64_t stop);

// Dataset.shuffle(seed): a seeded permutation (a private generator; the global RNG is untouched).
DatasetPtr shuffle(const DatasetPtr& ds, int64_t seed);

struct SplitOptions {
  // A fraction in (0, 1) → ceil(test_size · n) test examples, as HF computes it; an integer
  // >= 1 → that many.
  double test_size = 0.25;
  int64_t seed = 42;
  bool shuffle = true;  // false: train = the first examples, test = the rest
};
struct Split {
  DatasetPtr train, test;
};
// Dataset.train_test_split: with shuffle, test = the first n_test examples of a seeded
// permutation and train = the rest (in permutation order). Both sides must be non-empty.
Split train_test_split(const DatasetPtr& ds, const SplitOptions& options);

// Dataset.map, applied lazily when an example is read. fields() are those of the first
// mapped example, computed once at construction (so a broken function fails early).
// thread_safe: whether fn may run on DataLoader worker threads.
using MapFn = std::function<Example(const Example& example)>;
using IndexedMapFn = std::function<Example(const Example& example, int64_t index)>;

class MappedDataset : public DatasetView {
 public:
  MappedDataset(DatasetPtr base, IndexedMapFn fn, bool thread_safe, std::string origin);
  int64_t size() const override { return base_->size(); }
  Example get(int64_t index) const override;
  std::vector<std::string> fields() const override { return fields_; }
  bool thread_safe() const override { return thread_safe_ && base_->thread_safe(); }
  std::string describe() const override { return origin_; }

 private:
  IndexedMapFn fn_;
  bool thread_safe_;
  std::string origin_;
  std::vector<std::string> fields_;
};

DatasetPtr map(const DatasetPtr& ds, MapFn fn, bool thread_safe);

// Dataset.filter, eagerly: reads every example once and keeps the indices where the
// predicate holds (possibly none).
using Predicate = std::function<bool(const Example& example, int64_t index)>;
DatasetPtr filter(const DatasetPtr& ds, const Predicate& keep);

}  // namespace runner::data
