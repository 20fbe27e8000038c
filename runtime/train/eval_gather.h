// Sharded evaluation (Accelerate's gather_for_metrics): each rank evaluates its slice of
// every global batch, and the per-rank results are gathered to every rank and put back in
// dataset order, so losses, metrics and predictions equal a single-process evaluation.
#pragma once
#include <cstdint>
#include <vector>

#include <ATen/ATen.h>

#include "runtime/dist/data_parallel.h"

namespace runner::train {

// `local`: this rank's rows (dim 0), batch after batch, or undefined when it has none;
// `sizes`: this rank's rows in each global batch (0 where its slice was empty), the same
// number of batches on every rank. Returns all ranks' rows in dataset order (global batch
// by global batch, ranks in order), dim 1 padded with -100 where lengths differ, as
// concat_padded does. Collective.
at::Tensor gather_in_dataset_order(const dist::DataParallel& dp, const at::Tensor& local, const std::vector<int64_t>& sizes);

}  // namespace runner::train
