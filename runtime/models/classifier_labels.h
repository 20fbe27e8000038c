// What every *ForSequenceClassification shares, whatever its body (the encoders', the Llama
// family's): PretrainedConfig's labels (num_labels, id2label, label2id, problem_type) read from
// and written to config.json, and the loss transformers' ForSequenceClassificationLoss picks.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include "runtime/models/layers.h"

namespace runner::models {

struct ClassifierLabels {
  int64_t num_labels = 2;
  std::vector<std::string> names;  // id2label's, in id order (empty: LABEL_0, LABEL_1, ...)
  std::string problem_type;        // "", "regression", "single_label_classification", "multi_label_classification"
};

// "regression", "single_label_classification" or "multi_label_classification" (transformers' names).
bool is_problem_type(const std::string& name);

// num_labels is the size of id2label (2 when neither is given); a CheckpointError naming `where`
// for bad id2label keys or an unknown problem_type.
ClassifierLabels classifier_labels_from_hf(const nlohmann::json& config, const std::string& where);

// Adds id2label, label2id and (when set) problem_type to a config.json object.
void add_classifier_labels(nlohmann::json& config, const ClassifierLabels& labels);

// The decoders' `score`: Linear(in, num_labels) without bias, normal(0, std) as transformers
// initialises it; left as it is under MetaInit (the files give the values).
std::shared_ptr<Linear> score_head(int64_t in, int64_t num_labels, double std);

// transformers' GenericForSequenceClassification pooling: hidden (B, T, C) at each row's last
// token that is not the pad id, found on input_ids (not attention_mask, as transformers does:
// with the pad id also the end-of-text id, the row's closing end-of-text is skipped); a row of
// padding only takes its first token. Without a pad id the batch must be one row (a RecipeError
// naming `model` otherwise), scored at its last token. (B, C).
at::Tensor last_token_rows(const at::Tensor& hidden, const at::Tensor& ids, const std::vector<int64_t>& pad_token_id, const std::string& model);

// The config's problem_type, else regression (MSE) for one label, multi-label BCE for float
// labels, cross-entropy otherwise. logits (B, num_labels).
at::Tensor pooled_classification_loss(const ClassifierLabels& labels, const at::Tensor& logits, const at::Tensor& label_values,
                                      const std::string& model);

}  // namespace runner::models
