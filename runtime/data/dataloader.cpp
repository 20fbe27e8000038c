#include "runtime/data/dataloader.h"

#include <algorithm>

#include "runtime/core/errors.h"

namespace runner::data {

DataLoader::DataLoader(DatasetPtr dataset, std::shared_ptr<const Sampler> sampler, LoaderOptions options)
    : dataset_(std::move(dataset)), sampler_(std::move(sampler)), options_(std::move(options)) {
  if (options_.batch_size < 1) throw DataError("batch size must be >= 1");
  set_epoch(0);
}

int64_t DataLoader::num_batches() const {
  const int64_t n = dataset_->size(), bs = options_.batch_size;
  return options_.drop_last ? n / bs : (n + bs - 1) / bs;
}

void DataLoader::set_epoch(int64_t epoch) {
  if (epoch == epoch_) return;
  epoch_ = epoch;
  order_ = sampler_->order(epoch);
}

Batch DataLoader::batch(int64_t index) const {
  if (index < 0 || index >= num_batches())
    throw DataError("batch " + std::to_string(index) + " out of range (" + std::to_string(num_batches()) + " per epoch)",
                    dataset_->describe());
  const int64_t bs = options_.batch_size;
  const auto begin = order_.begin() + index * bs;
  const auto end = order_.begin() + std::min<int64_t>((index + 1) * bs, static_cast<int64_t>(order_.size()));
  std::vector<int64_t> indices(begin, end);
  Batch out;
  if (!options_.collator && dataset_->gather(indices, out)) {
    // The fast path skips default_collate, so apply its label renaming here too.
    for (const char* alias : {"label", "label_ids"}) {
      auto it = out.find(alias);
      if (it != out.end() && !out.count("labels")) out["labels"] = it->second, out.erase(it);
    }
    return out;
  }
  std::vector<Example> examples;
  examples.reserve(indices.size());
  for (int64_t i : indices) examples.push_back(dataset_->get(i));
  return options_.collator ? options_.collator(examples) : default_collate(examples);
}

}  // namespace runner::data
