#include "runtime/train/model_call.h"

#include <algorithm>

#include <c10/util/Exception.h>

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
  try {
    return {{"logits", model.forward(it->second)}};
  } catch (const c10::OutOfMemoryError&) {
    throw;  // auto_find_batch_size and the out-of-memory line read it as it is
  } catch (const c10::Error& e) {  // an ATen message alone names neither the model nor the field
    std::string message = e.what_without_backtrace();
    message = message.substr(0, message.find('\n'));
    const at::Tensor& x = it->second;
    throw RecipeError("the model (" + model.type_name() + ") on batch field '" + name + "' (" + std::string(c10::toString(x.scalar_type())) + " " +
                      c10::str(x.sizes()) + "): " + message);
  }
}

at::Tensor label_smoothed_loss(const at::Tensor& logits_in, const at::Tensor& labels_in, double epsilon, bool shift) {
  at::Tensor logits = logits_in, labels = labels_in;
  if (shift) {
    logits = logits.narrow(-2, 0, logits.size(-2) - 1);
    labels = labels.narrow(-1, 1, labels.size(-1) - 1);
  }
  at::Tensor neg_log_probs = -at::log_softmax(logits, -1);
  if (labels.dim() == neg_log_probs.dim() - 1) labels = labels.unsqueeze(-1);
  const at::Tensor padding = labels.eq(-100);
  at::Tensor nll = neg_log_probs.gather(-1, labels.clamp_min(0)).masked_fill(padding, 0.0);
  at::Tensor smoothed = neg_log_probs.sum(-1, true).masked_fill(padding, 0.0);
  const at::Tensor active = padding.numel() - padding.sum();
  return (1.0 - epsilon) * (nll.sum() / active) + epsilon * (smoothed.sum() / (active * neg_log_probs.size(-1)));
}

at::Tensor logits_of(const models::TensorMap& outputs) {
  auto it = outputs.find("logits");
  if (it != outputs.end()) return it->second;
  at::Tensor only;
  for (const auto& [k, v] : outputs) {
    if (k == "loss") continue;
    if (only.defined()) return {};  // several candidates: none is "the" prediction
    only = v;
  }
  return only;
}

LossResult default_compute_loss(models::Module& model, const Batch& batch, const CallOptions& o) {
  LossResult r;
  auto labels = batch.find("labels");
  if (o.label_smoothing != 0.0 && labels != batch.end()) {
    Batch without = batch;
    without.erase("labels");
    r.outputs = call_model(model, without, o);
    const at::Tensor logits = logits_of(r.outputs);
    if (!logits.defined()) throw RecipeError("label_smoothing_factor needs the model to return logits");
    r.loss = label_smoothed_loss(logits, labels->second, o.label_smoothing, model.shifts_labels());
    return r;
  }
  r.outputs = call_model(model, batch, o);
  auto it = r.outputs.find("loss");
  if (it == r.outputs.end() || !it->second.defined())
    throw RecipeError("the model did not return a loss, only: " + keys_of(r.outputs) + " (inputs: " + keys_of(batch) +
                      "); give the recipe a compute_loss, e.g. return F.mse_loss(model(inputs.x), inputs.labels)");
  r.loss = it->second;
  if (r.loss.numel() != 1) throw RecipeError("the model's loss must be a scalar, got " + std::to_string(r.loss.numel()) + " values");
  return r;
}

int64_t count_items(const Batch& batch, const std::vector<std::string>& label_names, bool shifted) {
  for (const auto& name : label_names) {
    auto it = batch.find(name);
    if (it == batch.end()) continue;
    at::Tensor labels = it->second;
    if (at::isIntegralType(labels.scalar_type(), /*includeBool=*/false)) {
      if (shifted && labels.dim() > 0) labels = labels.narrow(-1, 1, std::max<int64_t>(0, labels.size(-1) - 1));
      return labels.ne(-100).sum().item<int64_t>();
    }
    return labels.dim() > 0 ? labels.size(0) : 1;
  }
  for (const auto& [k, v] : batch)
    if (v.dim() > 0) return v.size(0);
  return 0;
}

}  // namespace runner::train
