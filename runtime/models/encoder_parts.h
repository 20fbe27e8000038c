// What the sequence classifiers (encoder_classifier.cpp: BERT, RoBERTa; distilbert.cpp) share:
// transformers' initialisation of their layers, the config checks, and the loss HF's
// *ForSequenceClassification picks.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "runtime/models/builtin.h"
#include "runtime/models/layers.h"

namespace runner::models {

// normal(0, std) weights, zero biases (a padding row zero); nothing under MetaInit, where the
// files give the values (from_pretrained).
std::shared_ptr<Linear> init_dense(int64_t in, int64_t out, double std);
std::shared_ptr<Embedding> init_embedding(int64_t num, int64_t dim, std::optional<int64_t> padding_idx, double std);

// RecipeError naming `model` for sizes, head counts, dropouts or a pad id out of range.
void check_encoder_config(const EncoderConfig& c, const std::string& model);

// The ids the Trainer range-checks on the host batch: input_ids, token_type_ids (unless the
// model has none: DistilBERT) and class labels.
std::vector<IdRange> encoder_id_ranges(const EncoderConfig& c, bool token_types);

// `t` (token_type_ids, attention_mask) when it has input_ids' shape; RecipeError naming `field` otherwise.
const at::Tensor& same_shape_as_ids(const at::Tensor& t, const at::Tensor& ids, const char* field, const std::string& model);

// HF's floating_point_ops for a batch: 6 · (parameters outside the embedding layers) · the
// input_ids tokens, forward and backward together (trainer_state.json's total_flos).
double encoder_flops(const Module& model, const TensorMap& batch, std::initializer_list<const Embedding*> embeddings);

// The config's problem_type, else regression (MSE) for one label, multi-label BCE for float
// labels, cross-entropy otherwise.
at::Tensor sequence_classification_loss(const EncoderConfig& c, const at::Tensor& logits, const at::Tensor& labels, const std::string& model);

// *ForQuestionAnswering's outputs from qa_outputs' (B, T, 2): logits, start_logits and
// end_logits (B, T), and with start_positions and end_positions (B) the loss transformers
// computes: the mean of the start and end cross-entropies, a position outside [0, T) clamped to
// T and ignored (an answer the window cut off).
TensorMap question_answering_outputs(const at::Tensor& logits, const TensorMap& batch, const std::string& model);
// *ForMultipleChoice: the batch's (B, C, T) fields (input_ids, attention_mask, token_type_ids)
// as (B·C, T) rows, which `rows` scores (its logits (B·C, 1)); the logits as (B, C) and, with
// labels (B), transformers' cross-entropy over the choices.
TensorMap multiple_choice_forward(const TensorMap& batch, const std::string& model, const std::function<TensorMap(const TensorMap&)>& rows);
// The batch fields a question-answering head reads besides the encoder's inputs.
inline std::vector<std::string> question_answering_labels() { return {"start_positions", "end_positions"}; }

}  // namespace runner::models
