// Predicted spans back into answers, as transformers' run_qa.py does it
// (utils_qa.postprocess_qa_predictions): for each example, over all its features, the
// n_best_size highest start and end logits of context tokens pair into candidate spans (end not
// before start, at most max_answer_length tokens), scored by the sum of their logits; the best
// one's context text is the answer. With version_2_with_negative the question may have no
// answer: the lowest null score (the first token's start + end logits) over the example's
// features competes, and the answer is "" when it beats the best span by more than
// null_score_diff_threshold. An example without a valid span answers "empty", as HF's does.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <ATen/ATen.h>

#include "runtime/data/sources/qa_features.h"

namespace runner::data {

struct QaPostprocessOptions {
  int64_t n_best_size = 20, max_answer_length = 30;
  bool version_2_with_negative = false;
  double null_score_diff_threshold = 0.0;
};

struct QaPrediction {
  std::string id, text;
  double null_score_diff = 0.0;  // version_2_with_negative: null score minus the best span's (HF's null_odds)
};

// `logits` (features, T, 2): each feature's start and end logits (the model's `logits`; columns
// past a feature's tokens, such as the -100 evaluation pads with, are never read). One
// prediction per example, in example order; DataError when the rows are not one per feature.
std::vector<QaPrediction> qa_postprocess(const QaFeatures& features, const at::Tensor& logits, const QaPostprocessOptions& options);

}  // namespace runner::data
