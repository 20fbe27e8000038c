// Map-style datasets: a size and random access, like torch.utils.data.Dataset.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/data/example.h"

namespace runner::data {

class Dataset {
 public:
  virtual ~Dataset() = default;
  virtual int64_t size() const = 0;
  virtual Example get(int64_t index) const = 0;
  // Field names every example has.
  virtual std::vector<std::string> fields() const = 0;
  // A whole batch at once, when the dataset can do better than get() + stack (tensor
  // datasets gather rows with one index_select per field). Returns false if it cannot.
  virtual bool gather(const std::vector<int64_t>& indices, Batch& out) const { return false; }
  // Whether get() may run on a background thread (false for datasets backed by Lua).
  virtual bool thread_safe() const { return true; }
  // Where the data came from, for error messages ("data.jsonl(train.jsonl)").
  virtual std::string describe() const = 0;
  // Columns that are not tensors (strings, structs, lists of them: a Parquet "text" or
  // "messages" column), as one JSON object per example. They reach map/filter functions and
  // data.sft, never a collator: like the Trainer's remove_unused_columns, a batch holds tensors.
  virtual std::vector<std::string> text_fields() const { return {}; }
  virtual nlohmann::ordered_json text(int64_t index) const { return nlohmann::ordered_json::object(); }
};

using DatasetPtr = std::shared_ptr<const Dataset>;

// A cheap identity of a dataset's contents: its size and the bytes, dtypes and shapes of up to
// `samples` examples spread evenly over it (the first and last included). Ranks compare it
// before training, so a dataset one rank builds differently (a template that prints the date,
// a shuffle without a seed) is an error instead of a hang or silently different data.
uint64_t fingerprint(const Dataset& ds, int64_t samples = 64);

// Rows of named tensors sharing dim 0, like torch.utils.data.TensorDataset with names.
class TensorDataset : public Dataset {
 public:
  explicit TensorDataset(Batch columns, std::string origin = "data.tensors");
  int64_t size() const override { return size_; }
  Example get(int64_t index) const override;
  std::vector<std::string> fields() const override;
  bool gather(const std::vector<int64_t>& indices, Batch& out) const override;
  std::string describe() const override { return origin_; }
  const Batch& columns() const { return columns_; }

 private:
  Batch columns_;
  int64_t size_ = 0;
  std::string origin_;
};

// Examples held one by one (data.table, JSONL rows); their fields may differ in shape.
class ExampleListDataset : public Dataset {
 public:
  explicit ExampleListDataset(std::vector<Example> examples, std::string origin = "data.table");
  int64_t size() const override { return static_cast<int64_t>(examples_.size()); }
  Example get(int64_t index) const override;
  std::vector<std::string> fields() const override;
  std::string describe() const override { return origin_; }

 private:
  std::vector<Example> examples_;
  std::string origin_;
};

}  // namespace runner::data
