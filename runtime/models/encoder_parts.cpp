#include "runtime/models/encoder_parts.h"

#include <c10/core/GradMode.h>

#include "runtime/core/errors.h"
#include "runtime/models/batch_inputs.h"
#include "runtime/models/classifier_labels.h"
#include "runtime/models/losses.h"
#include "runtime/models/parameter_store.h"

namespace runner::models {

std::shared_ptr<Linear> init_dense(int64_t in, int64_t out, double std) {
  auto l = std::make_shared<Linear>(in, out);
  if (meta_init_active()) return l;
  c10::NoGradGuard no_grad;
  l->weight.normal_(0.0, std);
  l->bias.zero_();
  return l;
}

std::shared_ptr<Embedding> init_embedding(int64_t num, int64_t dim, std::optional<int64_t> padding_idx, double std) {
  auto e = std::make_shared<Embedding>(num, dim, padding_idx);
  if (meta_init_active()) return e;
  c10::NoGradGuard no_grad;
  e->weight.normal_(0.0, std);
  if (padding_idx) e->weight[*padding_idx].zero_();
  return e;
}

void check_encoder_config(const EncoderConfig& c, const std::string& model) {
  if (c.vocab_size <= 0 || c.max_position_embeddings <= 0 || c.type_vocab_size <= 0 || c.n_layer <= 0 || c.n_head <= 0 ||
      c.hidden_size <= 0 || c.intermediate_size <= 0 || c.num_labels <= 0)
    throw RecipeError(model + ": sizes, n_layer, n_head and num_labels must be > 0");
  if (c.hidden_size % c.n_head != 0)
    throw RecipeError(model + ": hidden_size (" + std::to_string(c.hidden_size) + ") must be divisible by n_head (" + std::to_string(c.n_head) + ")");
  for (double p : {c.dropout, c.attention_dropout(), c.head_dropout()})
    if (p < 0 || p >= 1) throw RecipeError(model + ": dropout must be in [0, 1)");
  if (c.pad_token_id < 0 || c.pad_token_id >= c.vocab_size) throw RecipeError(model + ": pad_token_id must be within vocab_size");
  if (c.embedding_size < 0) throw RecipeError(model + ": embedding_size must be > 0");
}

std::vector<IdRange> encoder_id_ranges(const EncoderConfig& c, bool token_types) {
  std::vector<IdRange> r{{"input_ids", c.vocab_size, false, "vocab_size = " + std::to_string(c.vocab_size)}};
  if (token_types) r.push_back({"token_type_ids", c.type_vocab_size, false, "type_vocab_size = " + std::to_string(c.type_vocab_size)});
  if (c.question_answering) return r;  // positions past the window are ignored, not errors
  if (c.masked_lm) r.push_back({"labels", c.vocab_size, true, "vocab_size = " + std::to_string(c.vocab_size)});
  else if (c.num_labels > 1) r.push_back({"labels", c.num_labels, true, "num_labels = " + std::to_string(c.num_labels)});
  return r;
}

const at::Tensor& same_shape_as_ids(const at::Tensor& t, const at::Tensor& ids, const char* field, const std::string& model) {
  if (!t.sizes().equals(ids.sizes()))
    throw RecipeError(model + ": " + field + " must have the shape of input_ids " + shape_string(ids.sizes()) + ", got " + shape_string(t.sizes()));
  return t;
}

double encoder_flops(const Module& model, const TensorMap& batch, std::initializer_list<const Embedding*> embeddings) {
  auto it = batch.find("input_ids");
  if (it == batch.end() || !it->second.defined()) return 0.0;
  int64_t non_embedding = model.num_parameters();
  for (const Embedding* e : embeddings)
    if (e) non_embedding -= e->weight.numel();
  return 6.0 * static_cast<double>(non_embedding) * static_cast<double>(it->second.numel());
}

at::Tensor sequence_classification_loss(const EncoderConfig& c, const at::Tensor& logits, const at::Tensor& labels, const std::string& model) {
  if (c.per_token || c.masked_lm) return classification_loss(logits, labels, model);  // a class (token) per token, -100 ignored
  return pooled_classification_loss({c.num_labels, c.labels, c.problem_type}, logits, labels, model);
}

TensorMap question_answering_outputs(const at::Tensor& logits, const TensorMap& batch, const std::string& model) {
  TensorMap out{{"logits", logits}, {"start_logits", logits.select(-1, 0)}, {"end_logits", logits.select(-1, 1)}};
  const at::Tensor start = optional_field(batch, "start_positions"), end = optional_field(batch, "end_positions");
  if (start.defined() != end.defined()) throw RecipeError(model + ": give both start_positions and end_positions, or neither");
  if (!start.defined()) return out;
  const int64_t b = logits.size(0), t = logits.size(1);
  auto positions = [&](const at::Tensor& p, const char* name) {
    if (at::isFloatingType(p.scalar_type()) || p.numel() != b)
      throw RecipeError(model + ": " + name + " must hold one integer position per row (" + std::to_string(b) + "), got " +
                        shape_string(p.sizes()) + " " + std::string(c10::toString(p.scalar_type())));
    return p.reshape({b}).to(logits.device(), at::kLong).clamp(0, t);  // t: out of the window, ignored
  };
  const at::Tensor s = positions(start, "start_positions"), e = positions(end, "end_positions");
  const at::Tensor ls = at::cross_entropy_loss(out["start_logits"].to(at::kFloat), s, {}, at::Reduction::Mean, t);
  const at::Tensor le = at::cross_entropy_loss(out["end_logits"].to(at::kFloat), e, {}, at::Reduction::Mean, t);
  out["loss"] = (ls + le) / 2;
  return out;
}

TensorMap multiple_choice_forward(const TensorMap& batch, const std::string& model, const std::function<TensorMap(const TensorMap&)>& rows) {
  const at::Tensor& ids = require_field(batch, "input_ids", model);
  if (ids.dim() != 3)
    throw RecipeError(model + ": a multiple-choice model reads input_ids (batch, choices, tokens), got " + shape_string(ids.sizes()) +
                      " (data.multiple_choice_collator pads the choices)");
  const int64_t b = ids.size(0), c = ids.size(1), t = ids.size(2);
  TensorMap flat;
  for (const auto& [name, v] : batch) {
    if (name == "labels") continue;
    if (v.defined() && v.dim() == 3 && v.size(0) == b && v.size(1) == c) flat[name] = v.reshape({b * c, v.size(2)});
    else if (v.defined() && v.dim() == 3) throw RecipeError(model + ": " + name + " must have input_ids' (batch, choices) " + shape_string(ids.sizes()));
    else flat[name] = v;
  }
  (void)t;
  const at::Tensor logits = rows(flat).at("logits").reshape({b, c});
  TensorMap out{{"logits", logits}};
  if (at::Tensor labels = optional_field(batch, "labels"); labels.defined()) out["loss"] = classification_loss(logits, labels, model);
  return out;
}

}  // namespace runner::models
