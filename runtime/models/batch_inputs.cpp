#include "runtime/models/batch_inputs.h"

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

void check_id_ranges(const Module& model, const TensorMap& batch) {
  for (const IdRange& r : model.id_ranges()) {
    auto it = batch.find(r.field);
    if (it == batch.end() || !it->second.defined() || it->second.numel() == 0) continue;
    const at::Tensor& t = it->second;
    if (!at::isIntegralType(t.scalar_type(), /*includeBool=*/false)) continue;
    at::Tensor bad = t.lt(0).logical_or(t.ge(r.limit));
    if (r.ignore_minus_100) bad = bad.logical_and(t.ne(-100));
    if (!bad.any().item<bool>()) continue;
    const int64_t value = t.masked_select(bad).flatten()[0].item<int64_t>();
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
