#include "runtime/data/transforms.h"

#include <cmath>
#include <numeric>
#include <sstream>

#include "runtime/core/errors.h"
#include "runtime/data/sampler.h"

namespace runner::data {

IndexView::IndexView(DatasetPtr base, std::vector<int64_t> indices, std::string origin)
    : DatasetView(std::move(base)), indices_(std::move(indices)), origin_(std::move(origin)) {
  const int64_t n = base_->size();
  for (const int64_t i : indices_)
    if (i < 0 || i >= n)
      throw DataError("index " + std::to_string(i) + " out of range for " + std::to_string(n) + " examples", base_->describe());
}

Example IndexView::get(int64_t index) const {
  if (index < 0 || index >= size())
    throw DataError("index " + std::to_string(index) + " out of range for " + std::to_string(size()) + " examples", origin_);
  return base_->get(indices_[static_cast<size_t>(index)]);
}

nlohmann::ordered_json IndexView::text(int64_t index) const {
  if (index < 0 || index >= size())
    throw DataError("index " + std::to_string(index) + " out of range for " + std::to_string(size()) + " examples", origin_);
  return base_->text(indices_[static_cast<size_t>(index)]);
}

bool IndexView::gather(const std::vector<int64_t>& indices, Batch& out) const {
  std::vector<int64_t> mapped;
  mapped.reserve(indices.size());
  for (const int64_t i : indices) {
    if (i < 0 || i >= size())
      throw DataError("index " + std::to_string(i) + " out of range for " + std::to_string(size()) + " examples", origin_);
    mapped.push_back(indices_[static_cast<size_t>(i)]);
  }
  return base_->gather(mapped, out);
}

namespace {

// A view of a view reads the innermost base directly, so chained selects stay one hop deep.
DatasetPtr view(const DatasetPtr& ds, std::vector<int64_t> indices, const std::string& what) {
  const std::string origin = ds->describe() + "." + what;
  if (const auto* inner = dynamic_cast<const IndexView*>(ds.get())) {
    for (auto& i : indices) {
      if (i < 0 || i >= inner->size())
        throw DataError("index " + std::to_string(i) + " out of range for " + std::to_string(inner->size()) + " examples", ds->describe());
      i = inner->indices()[static_cast<size_t>(i)];
    }
    return std::make_shared<IndexView>(inner->base(), std::move(indices), origin);
  }
  return std::make_shared<IndexView>(ds, std::move(indices), origin);
}

std::vector<int64_t> iota(int64_t begin, int64_t end) {
  std::vector<int64_t> v(static_cast<size_t>(std::max<int64_t>(0, end - begin)));
  std::iota(v.begin(), v.end(), begin);
  return v;
}

}  // namespace

DatasetPtr select(const DatasetPtr& ds, std::vector<int64_t> indices) {
  const std::string what = "select(" + std::to_string(indices.size()) + " examples)";
  return view(ds, std::move(indices), what);
}

DatasetPtr select_range(const DatasetPtr& ds, int64_t start, int64_t stop) {
  if (start < 0 || stop < start || stop > ds->size())
    throw DataError("select: range [" + std::to_string(start) + ", " + std::to_string(stop) + ") does not fit " +
                        std::to_string(ds->size()) + " examples", ds->describe());
  return view(ds, iota(start, stop), "select(" + std::to_string(start) + ", " + std::to_string(stop) + ")");
}

DatasetPtr shuffle(const DatasetPtr& ds, int64_t seed) {
  return view(ds, RandomSampler(ds->size(), seed).order(0), "shuffle(seed=" + std::to_string(seed) + ")");
}

Split train_test_split(const DatasetPtr& ds, const SplitOptions& o) {
  const int64_t n = ds->size();
  std::ostringstream ts;
  ts << o.test_size;
  int64_t n_test;
  if (o.test_size > 0 && o.test_size < 1) {
    n_test = static_cast<int64_t>(std::ceil(o.test_size * static_cast<double>(n)));
  } else if (o.test_size >= 1 && o.test_size == std::floor(o.test_size)) {
    // Compared as a double first: a count beyond int64 (5e47, found by fuzzing) has no
    // integer value to convert to; any count above n fails the check below the same way.
    n_test = o.test_size > static_cast<double>(n) ? n + 1 : static_cast<int64_t>(o.test_size);
  } else {
    throw DataError("train_test_split: test_size must be a fraction in (0, 1) or a count >= 1, got " + ts.str(), ds->describe());
  }
  const int64_t n_train = n - n_test;
  if (n_test > n || n_train < 1)
    throw DataError("train_test_split: test_size " + ts.str() + " of " + std::to_string(n) + " examples leaves " +
                        (n_train < 1 ? "no training examples" : "too few examples"), ds->describe());
  std::vector<int64_t> order = o.shuffle ? RandomSampler(n, o.seed).order(0) : iota(0, n);
  std::vector<int64_t> test, train;
  if (o.shuffle) {
    test.assign(order.begin(), order.begin() + n_test);
    train.assign(order.begin() + n_test, order.end());
  } else {
    train.assign(order.begin(), order.begin() + n_train);
    test.assign(order.begin() + n_train, order.end());
  }
  const std::string how = "seed=" + std::to_string(o.seed);
  return {view(ds, std::move(train), "train_test_split(" + how + ").train"), view(ds, std::move(test), "train_test_split(" + how + ").test")};
}

MappedDataset::MappedDataset(DatasetPtr base, IndexedMapFn fn, bool thread_safe, std::string origin)
    : DatasetView(std::move(base)), fn_(std::move(fn)), thread_safe_(thread_safe), origin_(std::move(origin)) {
  if (!fn_) throw DataError("map: no function given", base_->describe());
  if (base_->size() > 0)
    for (const auto& [name, t] : get(0)) fields_.push_back(name);
}

Example MappedDataset::get(int64_t index) const { return fn_(base_->get(index), index); }

DatasetPtr map(const DatasetPtr& ds, MapFn fn, bool thread_safe) {
  if (!fn) throw DataError("map: no function given", ds->describe());
  return std::make_shared<MappedDataset>(
      ds, [fn = std::move(fn)](const Example& e, int64_t) { return fn(e); }, thread_safe, ds->describe() + ".map");
}

DatasetPtr filter(const DatasetPtr& ds, const Predicate& keep) {
  std::vector<int64_t> kept;
  for (int64_t i = 0; i < ds->size(); ++i)
    if (keep(ds->get(i), i)) kept.push_back(i);
  return view(ds, std::move(kept), "filter");
}

}  // namespace runner::data
