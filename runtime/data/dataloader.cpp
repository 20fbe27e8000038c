#include "runtime/data/dataloader.h"

#include <algorithm>
#include <chrono>

#include "runtime/core/errors.h"
#include "runtime/data/prefetcher.h"
#include "runtime/data/stream/stream_loader.h"

namespace runner::data {

namespace {

// Batch `index` of an epoch's order: the same code runs in the caller and on workers.
Batch collate_batch(const Dataset& ds, const LoaderOptions& o, const std::vector<int64_t>& order, int64_t epoch, int64_t index);

Batch build_batch(const Dataset& ds, const LoaderOptions& o, const std::vector<int64_t>& order, int64_t epoch, int64_t index) {
  Batch b = collate_batch(ds, o, order, epoch, index);
  if (o.pin_memory)
    for (auto& [name, t] : b)
      if (t.defined() && !t.is_pinned()) t = t.pin_memory();
  return b;
}

Batch collate_batch(const Dataset& ds, const LoaderOptions& o, const std::vector<int64_t>& order, int64_t epoch, int64_t index) {
  const int64_t bs = o.batch_size;
  const auto begin = order.begin() + index * bs;
  const auto end = order.begin() + std::min<int64_t>((index + 1) * bs, static_cast<int64_t>(order.size()));
  std::vector<int64_t> indices(begin, end);
  Batch out;
  if (!o.collator && ds.gather(indices, out)) {
    // The fast path skips default_collate, so apply its label renaming here too.
    for (const char* alias : {"label", "label_ids"}) {
      auto it = out.find(alias);
      if (it != out.end() && !out.count("labels")) out["labels"] = it->second, out.erase(it);
    }
    return out;
  }
  std::vector<Example> examples;
  examples.reserve(indices.size());
  for (int64_t i : indices) examples.push_back(ds.get(i));
  return o.collator ? o.collator(examples, BatchOrigin{o.seed, epoch, std::move(indices)}) : default_collate(examples);
}

}  // namespace

DataLoader::DataLoader(DatasetPtr dataset, std::shared_ptr<const Sampler> sampler, LoaderOptions options)
    : dataset_(std::move(dataset)), sampler_(std::move(sampler)), options_(std::move(options)) {
  if (options_.batch_size < 1) throw DataError("batch size must be >= 1");
  if (options_.num_workers < 0) throw DataError("num_workers must be >= 0 (got " + std::to_string(options_.num_workers) + ")");
  if (options_.prefetch_factor < 1)
    throw DataError("prefetch_factor must be >= 1 (got " + std::to_string(options_.prefetch_factor) + ")");
  const bool collator_ok = !options_.collator || options_.collator_thread_safe;
  if (options_.num_workers > 0 && dataset_->thread_safe() && collator_ok)
    prefetcher_ = std::make_unique<Prefetcher>(options_.num_workers, options_.num_workers * options_.prefetch_factor);
  set_epoch(0);
}

DataLoader::DataLoader(std::shared_ptr<StreamLoader> stream, int64_t num_batches, bool pin_memory)
    : stream_(std::move(stream)), stream_batches_(num_batches) {
  options_.pin_memory = pin_memory;
}

DataLoader::~DataLoader() = default;
DataLoader::DataLoader(DataLoader&&) noexcept = default;
DataLoader& DataLoader::operator=(DataLoader&&) noexcept = default;

int64_t DataLoader::num_batches() const {
  if (stream_) return stream_batches_;
  const int64_t n = static_cast<int64_t>(order_->size()), bs = options_.batch_size;
  return options_.drop_last ? n / bs : (n + bs - 1) / bs;
}

void DataLoader::set_epoch(int64_t epoch) {
  if (epoch == epoch_ || stream_) return;
  epoch_ = epoch;
  order_ = std::make_shared<const std::vector<int64_t>>(sampler_->order(epoch));
  if (prefetcher_) {
    // Workers get their own references, so a loader moved or destroyed mid-build is safe.
    prefetcher_->reset([ds = dataset_, o = options_, order = order_, epoch](int64_t i) { return build_batch(*ds, o, *order, epoch, i); },
                       num_batches());
  }
}

Batch DataLoader::batch(int64_t index) const {
  if (stream_) {
    Batch b = stream_->batch(index);
    if (options_.pin_memory)
      for (auto& [name, t] : b) t = t.pin_memory();
    wait_seconds_ = stream_->wait_seconds();
    return b;
  }
  if (index < 0 || index >= num_batches())
    throw DataError("batch " + std::to_string(index) + " out of range (" + std::to_string(num_batches()) + " per epoch)",
                    dataset_->describe());
  if (prefetcher_) {
    double waited = 0;
    Batch b = prefetcher_->take(index, waited);
    wait_seconds_ += waited;
    return b;
  }
  const auto t0 = std::chrono::steady_clock::now();
  Batch b = build_batch(*dataset_, options_, *order_, epoch_, index);
  wait_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return b;
}

}  // namespace runner::data
