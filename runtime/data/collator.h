// Collators turn a list of examples into a batch.
#pragma once
#include <functional>
#include <vector>

#include "runtime/data/example.h"

namespace runner::data {

using Collator = std::function<Batch(const std::vector<Example>&)>;

// HF default_data_collator: stack each field along a new dim 0; `label` and `label_ids`
// are renamed to `labels`. Examples must agree on fields and shapes (a DataError names the
// field otherwise: variable-length fields need a padding collator).
Batch default_collate(const std::vector<Example>& examples);

// Number of examples in a batch (dim 0 of its first field).
int64_t batch_size_of(const Batch& batch);

}  // namespace runner::data
