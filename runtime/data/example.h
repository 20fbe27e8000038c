// An example and a batch are both a map from field name to tensor. A batch's tensors have
// the examples along dim 0. Fields are ordered by name, so "the first field" is well
// defined wherever a recipe does not name one.
#pragma once
#include <map>
#include <string>

#include <ATen/ATen.h>

namespace runner::data {

using Example = std::map<std::string, at::Tensor>;
using Batch = std::map<std::string, at::Tensor>;

}  // namespace runner::data
