// Concatenation of per-batch evaluation tensors (HF nested_concat with padding_index -100):
// along dim 0, padding dim 1 with -100 when sequence lengths differ between batches.
#pragma once
#include <ATen/ATen.h>

namespace runner::train {

at::Tensor concat_padded(const at::Tensor& a, const at::Tensor& b, double padding = -100);

}  // namespace runner::train
