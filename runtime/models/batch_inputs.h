// Reading batch fields in the built-in models: which field a single-input model reads, and
// the checks that turn a wrong batch into a RecipeError naming the model and the field
// instead of an ATen shape error from deep inside a matmul.
#pragma once
#include <string>
#include <vector>

#include "runtime/models/module.h"

namespace runner::models {

// The field a single-input model reads: `configured` when set, else "pixel_values", else
// "x", else the first field (in key order) that is not "labels".
const at::Tensor& pick_input(const TensorMap& batch, const std::string& configured, const std::string& model);

// batch[name], or a RecipeError listing the fields that are there.
const at::Tensor& require_field(const TensorMap& batch, const std::string& name, const std::string& model);

// batch[name] or an undefined tensor.
at::Tensor optional_field(const TensorMap& batch, const std::string& name);

// A token-id field as int64 (B, T): integer dtype and two dimensions, else a RecipeError.
at::Tensor token_ids(const at::Tensor& t, const std::string& field, const std::string& model);

// The integer fields of `batch` named by model.id_ranges() hold only allowed values, else a
// DataError naming the field, the value and the limit. Meant for host batches (on a GPU it
// would wait for the device); floating-point fields (regression targets) are not ids.
void check_id_ranges(const Module& model, const TensorMap& batch);

// input_names() of a single-input model: {} when the field is chosen per batch.
std::vector<std::string> single_input_names(const std::string& configured);

std::string shape_string(at::IntArrayRef shape);  // "[2, 3]"
std::string field_list(const TensorMap& batch);    // "input_ids, labels", or "(none)"

}  // namespace runner::models
