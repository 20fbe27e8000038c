#include "runtime/train/model_call.h"

#include <algorithm>

#include "runtime/core/errors.h"

namespace runner::train {

namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

std::string keys_of(const models::TensorMap& m) {
  std::string s;
  for (const auto& [k, v] : m) s += (s.empty() ? "" : ", ") + k;
  return s.empty() ? "(none)" : s;
}

}  // namespace

models::TensorMap call_model(models::Module& model, const Batch& batch, const CallOptions& o) {
  if (model.takes_batch()) {
    const auto wanted = model.input_names();
    if (!o.remove_unused_columns || wanted.empty()) return model.forward_batch(batch);
    Batch kept;
    for (const auto& [k, v] : batch)
      if (contains(wanted, k) || contains(o.label_names, k)) kept[k] = v;
    if (kept.empty())
      throw RecipeError("no batch field matches the model's inputs (" + keys_of(batch) +
                        "); set remove_unused_columns=false or rename the fields");
    return model.forward_batch(kept);
  }
  std::string name = o.input_name;
  if (name.empty()) {
    if (batch.count("input")) {
      name = "input";
    } else {
      for (const auto& [k, v] : batch)
        if (!contains(o.label_names, k)) {
          name = k;
          break;
        }
    }
  }
  auto it = batch.find(name);
  if (it == batch.end())
    throw RecipeError(name.empty() ? "the batch has no input field (only labels: " + keys_of(batch) + ")"
                                   : "input_name \"" + name + "\" is not a batch field (fields: " + keys_of(batch) + ")");
  return {{"logits", model.forward(it->second)}};
}

LossResult default_compute_loss(models::Module& model, const Batch& batch, const CallOptions& o) {
  LossResult r;
  r.outputs = call_model(model, batch, o);
  auto it = r.outputs.find("loss");
  if (it == r.outputs.end() || !it->second.defined())
    throw RecipeError("the model did not return a loss, only: " + keys_of(r.outputs) + " (inputs: " + keys_of(batch) +
                      "); give the recipe a compute_loss, e.g. return F.mse_loss(model(inputs.x), inputs.labels)");
  r.loss = it->second;
  if (r.loss.numel() != 1) throw RecipeError("the model's loss must be a scalar, got " + std::to_string(r.loss.numel()) + " values");
  return r;
}

int64_t count_items(const Batch& batch, const std::vector<std::string>& label_names) {
  for (const auto& name : label_names) {
    auto it = batch.find(name);
    if (it == batch.end()) continue;
    const at::Tensor& labels = it->second;
    if (at::isIntegralType(labels.scalar_type(), /*includeBool=*/false)) return labels.ne(-100).sum().item<int64_t>();
    return labels.dim() > 0 ? labels.size(0) : 1;
  }
  for (const auto& [k, v] : batch)
    if (v.dim() > 0) return v.size(0);
  return 0;
}

}  // namespace runner::train
