#include "runtime/models/batch_inputs.h"

#include <optional>

#include "runtime/core/errors.h"

namespace runner::models {

std::string field_list(const TensorMap& batch) {
  std::string s;
  for (const auto& [k, v] : batch) s += (s.empty() ? "" : ", ") + k;
  return s.empty() ? "(none)" : s;
}

const at::Tensor& pick_input(const TensorMap& batch, const std::string& configured, const std::string& model) {
  if (!configured.empty()) return require_field(batch, configured, model);
  for (const char* preferred : {"pixel_values", "x"}) {
    auto it = batch.find(preferred);
    if (it != batch.end()) return it->second;
  }
  for (const auto& [k, v] : batch)
    if (k != "labels") return v;
  throw RecipeError(model + ": the batch has no input field (fields: " + field_list(batch) + ")");
}

const at::Tensor& require_field(const TensorMap& batch, const std::string& name, const std::string& model) {
  auto it = batch.find(name);
  if (it == batch.end() || !it->second.defined())
    throw RecipeError(model + " reads the batch field \"" + name + "\", which is missing (fields: " + field_list(batch) + ")");
  return it->second;
}

at::Tensor optional_field(const TensorMap& batch, const std::string& name) {
  auto it = batch.find(name);
  return it == batch.end() ? at::Tensor() : it->second;
}

at::Tensor token_ids(const at::Tensor& t, const std::string& field, const std::string& model) {
  if (!at::isIntegralType(t.scalar_type(), /*includeBool=*/false))
    throw RecipeError(model + ": " + field + " must hold integer token ids, got " + c10::toString(t.scalar_type()));
  if (t.dim() != 2) throw RecipeError(model + ": " + field + " must be (batch, sequence), got shape " + shape_string(t.sizes()));
  return t.to(at::kLong);
}

namespace {

// The first id (in row-major order) outside [0, limit), -100 excepted where it means
// "ignored": read straight from a contiguous host tensor. This runs on every micro-batch
// before its copy to the device, and ATen's five elementwise ops with their dispatch cost a
// small model's host-bound step more than the scan over its few thousand ids does.
template <typename T>
std::optional<int64_t> first_outside(const at::Tensor& t, const IdRange& r) {
  const T* p = t.const_data_ptr<T>();
  for (int64_t i = 0, n = t.numel(); i < n; ++i) {
    const int64_t v = static_cast<int64_t>(p[i]);
    if ((v < 0 || v >= r.limit) && !(r.ignore_minus_100 && v == -100)) return v;
  }
  return std::nullopt;
}

std::optional<int64_t> first_outside(const at::Tensor& t, const IdRange& r) {
  if (t.device().is_cpu() && t.is_contiguous()) {
    if (t.scalar_type() == at::kLong) return first_outside<int64_t>(t, r);
    if (t.scalar_type() == at::kInt) return first_outside<int32_t>(t, r);
  }
  at::Tensor bad = t.lt(0).logical_or(t.ge(r.limit));  // other layouts and dtypes, and device tensors
  if (r.ignore_minus_100) bad = bad.logical_and(t.ne(-100));
  if (!bad.any().item<bool>()) return std::nullopt;
  return t.masked_select(bad).flatten()[0].item<int64_t>();
}

}  // namespace

void check_id_ranges(const Module& model, const TensorMap& batch) {
  for (const IdRange& r : model.id_ranges()) {
    auto it = batch.find(r.field);
    if (it == batch.end() || !it->second.defined() || it->second.numel() == 0) continue;
    const at::Tensor& t = it->second;
    if (!at::isIntegralType(t.scalar_type(), /*includeBool=*/false)) continue;
    const std::optional<int64_t> outside = first_outside(t, r);
    if (!outside) continue;
    const int64_t value = *outside;
    throw DataError("the batch field " + r.field + " holds " + std::to_string(value) + ", outside " + model.type_name() + "'s range [0, " +
                    std::to_string(r.limit) + ")" + (r.ignore_minus_100 ? " (or -100, ignored)" : "") + " set by " + r.limit_name +
                    ": the data and the model disagree");
  }
}

std::vector<std::string> single_input_names(const std::string& configured) {
  if (configured.empty()) return {};
  return {configured, "labels"};
}

std::string shape_string(at::IntArrayRef s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

}  // namespace runner::models
