// DataLoader: batches of a dataset in the order a sampler gives, one epoch at a time.
// Batches are addressed by index within the epoch, so resuming skips batches without
// loading them.
#pragma once
#include <memory>
#include <vector>

#include "runtime/data/collator.h"
#include "runtime/data/dataset.h"
#include "runtime/data/sampler.h"

namespace runner::data {

struct LoaderOptions {
  int64_t batch_size = 8;
  bool drop_last = false;
  Collator collator;  // empty = default_collate (with the dataset's fast gather when it has one)
};

class DataLoader {
 public:
  DataLoader(DatasetPtr dataset, std::shared_ptr<const Sampler> sampler, LoaderOptions options);

  int64_t num_batches() const;  // per epoch: ceil(n / bs), or floor with drop_last
  void set_epoch(int64_t epoch);
  Batch batch(int64_t index) const;  // index-th batch of the current epoch
  const Dataset& dataset() const { return *dataset_; }
  int64_t batch_size() const { return options_.batch_size; }

 private:
  DatasetPtr dataset_;
  std::shared_ptr<const Sampler> sampler_;
  LoaderOptions options_;
  int64_t epoch_ = -1;
  std::vector<int64_t> order_;
};

}  // namespace runner::data
