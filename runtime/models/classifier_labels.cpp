#include "runtime/models/classifier_labels.h"

#include <c10/core/GradMode.h>

#include "runtime/core/errors.h"
#include "runtime/core/json_fields.h"
#include "runtime/models/losses.h"
#include "runtime/models/parameter_store.h"

namespace runner::models {

using nlohmann::json;

bool is_problem_type(const std::string& t) {
  return t == "regression" || t == "single_label_classification" || t == "multi_label_classification";
}

ClassifierLabels classifier_labels_from_hf(const json& c, const std::string& where) {
  ClassifierLabels l;
  if (auto it = c.find("id2label"); it != c.end() && it->is_object() && !it->empty()) {
    l.names.assign(it->size(), "");
    for (const auto& [k, v] : it->items()) {
      size_t i = 0;
      try {
        i = std::stoul(k);
      } catch (const std::exception&) {
        throw CheckpointError("id2label keys must be 0 .. num_labels - 1, got \"" + k + "\"", where);
      }
      if (i >= l.names.size() || !v.is_string()) throw CheckpointError("id2label keys must be 0 .. num_labels - 1, got \"" + k + "\"", where);
      l.names[i] = v.get<std::string>();
    }
    l.num_labels = static_cast<int64_t>(l.names.size());
  } else if (c.contains("num_labels")) {
    l.num_labels = JsonFields(c, where).integer("num_labels", 2);
  }
  if (c.contains("problem_type") && c["problem_type"].is_string()) l.problem_type = c["problem_type"].get<std::string>();
  if (!l.problem_type.empty() && !is_problem_type(l.problem_type))
    throw CheckpointError("problem_type \"" + l.problem_type + "\" is not one of regression, single_label_classification, multi_label_classification", where);
  if (l.problem_type == "regression" && l.num_labels != 1)
    throw CheckpointError("problem_type regression with " + std::to_string(l.num_labels) + " labels is not supported (num_labels = 1 is)", where);
  return l;
}

void add_classifier_labels(json& config, const ClassifierLabels& l) {
  json id2label = json::object(), label2id = json::object();
  for (int64_t i = 0; i < l.num_labels; ++i) {
    const auto k = static_cast<size_t>(i);
    const std::string name = k < l.names.size() && !l.names[k].empty() ? l.names[k] : "LABEL_" + std::to_string(i);
    id2label[std::to_string(i)] = name;
    label2id[name] = i;
  }
  config["id2label"] = id2label;
  config["label2id"] = label2id;
  if (!l.problem_type.empty()) config["problem_type"] = l.problem_type;
}

std::shared_ptr<Linear> score_head(int64_t in, int64_t num_labels, double std) {
  auto score = std::make_shared<Linear>(in, num_labels, /*bias=*/false);
  if (!meta_init_active()) {
    c10::NoGradGuard no_grad;
    score->weight.normal_(0.0, std);
  }
  return score;
}

at::Tensor last_token_rows(const at::Tensor& x, const at::Tensor& ids, const std::vector<int64_t>& pad_token_id, const std::string& model) {
  const int64_t b = ids.size(0), t = ids.size(1);
  at::Tensor last;
  if (pad_token_id.empty()) {
    if (b != 1)
      throw RecipeError(model + ": a sequence classifier without pad_token_id takes batches of one row, got " + std::to_string(b) +
                        " (give the model a pad_token_id: each row is scored at its last token that is not it)");
    last = at::full({1}, t - 1, ids.options().dtype(at::kLong));
  } else {
    const at::Tensor kept = ids.ne(pad_token_id[0]).to(at::kInt);
    last = (at::arange(t, ids.options().dtype(at::kInt)) * kept).argmax(-1);  // (B)
  }
  const at::Tensor rows = at::arange(b, ids.options().dtype(at::kLong)) * t + last;
  return x.reshape({b * t, x.size(2)}).index_select(0, rows);
}

at::Tensor pooled_classification_loss(const ClassifierLabels& l, const at::Tensor& logits, const at::Tensor& labels, const std::string& model) {
  const std::string& kind = l.problem_type;
  if (kind == "regression" || (kind.empty() && l.num_labels == 1)) return regression_loss(logits, labels, model);
  if (kind == "multi_label_classification" || (kind.empty() && labels.is_floating_point()))
    return multi_label_loss(logits, labels.to(logits.scalar_type()), model);
  return classification_loss(logits, labels, model);
}

}  // namespace runner::models
