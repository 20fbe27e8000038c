// make_encoder_classifier: a BERT-like encoder with a pooled classification head, named as
// Hugging Face BertForSequenceClassification (model_type "roberta", "xlm-roberta", "camembert":
// RobertaForSequenceClassification and its namesakes, "roberta." for "bert.", no pooler,
// classifier.dense and classifier.out_proj; "electra": ElectraForSequenceClassification,
// "electra." for "bert.", embeddings of their own width projected to H by
// electra.embeddings_project when they differ, no pooler, the classifier.dense → GELU →
// classifier.out_proj head; masked_lm: *ForMaskedLM, no pooler, masked_lm_head.h's head;
// question_answering: *ForQuestionAnswering, no pooler, qa_outputs (2, H) on every position):
//
//   bert.embeddings.{word_embeddings, position_embeddings, token_type_embeddings}.weight
//   bert.embeddings.LayerNorm.weight|bias
//   bert.encoder.layer.{i}.attention.self.{query, key, value}.weight (H, H) | .bias
//   bert.encoder.layer.{i}.attention.output.dense.weight|bias, .attention.output.LayerNorm.*
//   bert.encoder.layer.{i}.intermediate.dense.weight (I, H) | .bias
//   bert.encoder.layer.{i}.output.dense.weight (H, I) | .bias, .output.LayerNorm.*
//   bert.pooler.dense.weight|bias
//   classifier.weight (num_labels, H) | .bias
//
// (HF's bert.embeddings.position_ids buffer is not kept: positions are always 0..T-1.)
// Post-LayerNorm blocks, exact GELU, HF init (normal 0.02 weights and embeddings, zero
// biases, word embedding row 0 = padding, LayerNorm ones/zeros). attention_mask (B, T) of
// 1 = token, 0 = padding hides padded keys; token_type_ids default to 0. Loss with labels:
// cross-entropy for integer labels (num_labels > 1), MSE when num_labels == 1, and binary
// cross-entropy for float labels shaped (B, num_labels) (HF's multi-label problem type).
#include "runtime/core/errors.h"
#include "runtime/models/attention.h"
#include "runtime/models/batch_inputs.h"
#include "runtime/models/bert_config.h"
#include "runtime/models/builtin.h"
#include "runtime/models/encoder_parts.h"
#include "runtime/models/layers.h"
#include "runtime/models/masked_lm_head.h"

namespace runner::models {

namespace {

const char* const kName = "models.encoder_classifier";

// A Linear followed by dropout, a residual add and LayerNorm: HF's BertSelfOutput and
// BertOutput, both named {dense, LayerNorm}.
class ResidualOutput : public Module {
 public:
  ResidualOutput(int64_t in, const EncoderConfig& c) : Module("BertOutput"), dropout_(c.dropout) {
    dense_ = init_dense(in, c.hidden_size, c.initializer_range);
    norm_ = std::make_shared<LayerNorm>(std::vector<int64_t>{c.hidden_size}, c.layer_norm_eps);
    register_module("dense", dense_);
    register_module("LayerNorm", norm_);
  }
  at::Tensor forward2(const at::Tensor& h, const at::Tensor& residual) {  // (B, T, in), (B, T, H)
    return hooked([&] {
      at::Tensor y = dense_->forward(h);
      if (dropout_ > 0) y = at::dropout(y, dropout_, dropout_active());
      return norm_->forward(y + residual);
    });
  }

 private:
  double dropout_;
  std::shared_ptr<Linear> dense_;
  std::shared_ptr<LayerNorm> norm_;
};

class EncoderLayer : public Module {
 public:
  explicit EncoderLayer(const EncoderConfig& c)
      : Module(c.family() + "Layer"), n_head_(c.n_head), dropout_(c.attention_dropout()) {
    auto attention = std::make_shared<Module>("BertAttention");
    auto self = std::make_shared<Module>("BertSelfAttention");
    query_ = init_dense(c.hidden_size, c.hidden_size, c.initializer_range);
    key_ = init_dense(c.hidden_size, c.hidden_size, c.initializer_range);
    value_ = init_dense(c.hidden_size, c.hidden_size, c.initializer_range);
    self->register_module("query", query_);
    self->register_module("key", key_);
    self->register_module("value", value_);
    attention->register_module("self", self);
    attention_output_ = std::make_shared<ResidualOutput>(c.hidden_size, c);
    attention->register_module("output", attention_output_);
    register_module("attention", attention);
    auto intermediate = std::make_shared<Module>("BertIntermediate");
    intermediate_ = init_dense(c.hidden_size, c.intermediate_size, c.initializer_range);
    intermediate->register_module("dense", intermediate_);
    register_module("intermediate", intermediate);
    output_ = std::make_shared<ResidualOutput>(c.intermediate_size, c);
    register_module("output", output_);
  }
  // x (B, T, H); hide (B, 1, 1, T) bool, true for padded keys, or undefined.
  at::Tensor forward_masked(const at::Tensor& x, const at::Tensor& hide) {
    return hooked([&] { return maybe_checkpointed({x, hide}, [this](const std::vector<at::Tensor>& in) { return body(in[0], in[1]); }); });
  }

 private:
  at::Tensor body(const at::Tensor& x, const at::Tensor& hide) {
    at::Tensor ctx = attend(split_heads(query_->forward(x), n_head_), split_heads(key_->forward(x), n_head_),
                            split_heads(value_->forward(x), n_head_), hide, /*causal=*/false, dropout_, dropout_active());  // (B, nH, T, D)
    at::Tensor h = attention_output_->forward2(merge_heads(ctx), x);                                       // (B, T, H)
    return output_->forward2(at::gelu(intermediate_->forward(h)), h);
  }

 private:
  int64_t n_head_;
  double dropout_;
  std::shared_ptr<Linear> query_, key_, value_, intermediate_;
  std::shared_ptr<ResidualOutput> attention_output_, output_;
};

class EncoderClassifier : public Module {
 public:
  explicit EncoderClassifier(const EncoderConfig& c)
      : Module(c.architecture()), config_(c) {
    if (c.model_type != "bert" && c.model_type != "electra" && !is_roberta_type(c.model_type))
      throw RecipeError(std::string(kName) + ": model_type must be \"bert\", \"roberta\", \"xlm-roberta\", \"camembert\" or \"electra\", got \"" +
                        c.model_type + "\"");
    check_encoder_config(c, kName);
    const int64_t E = c.embedding_size > 0 ? c.embedding_size : c.hidden_size;  // ELECTRA's may be narrower
    const double H = static_cast<double>(c.hidden_size), I = static_cast<double>(c.intermediate_size);
    check_model_scale(kName, c.n_layer,
                      static_cast<double>(c.vocab_size + c.max_position_embeddings + c.type_vocab_size + c.hidden_size) * static_cast<double>(E) +
                          static_cast<double>(c.n_layer) * (4 * H * H + 2 * H * I + 9 * H + I));
    auto bert = std::make_shared<Module>(electra() ? "ElectraModel" : "BertModel");
    auto embeddings = std::make_shared<Module>("BertEmbeddings");
    words_ = init_embedding(c.vocab_size, E, /*padding_idx=*/c.pad_token_id, c.initializer_range);
    positions_ = init_embedding(c.max_position_embeddings, E, roberta() ? std::optional<int64_t>(c.pad_token_id) : std::nullopt,
                           c.initializer_range);
    types_ = init_embedding(c.type_vocab_size, E, std::nullopt, c.initializer_range);
    embed_norm_ = std::make_shared<LayerNorm>(std::vector<int64_t>{E}, c.layer_norm_eps);
    embeddings->register_module("word_embeddings", words_);
    embeddings->register_module("position_embeddings", positions_);
    embeddings->register_module("token_type_embeddings", types_);
    embeddings->register_module("LayerNorm", embed_norm_);
    bert->register_module("embeddings", embeddings);
    if (E != c.hidden_size) {
      if (!electra()) throw RecipeError(std::string(kName) + ": embedding_size is ALBERT's and ELECTRA's");
      project_ = init_dense(E, c.hidden_size, c.initializer_range);
      bert->register_module("embeddings_project", project_);
    }
    auto encoder = std::make_shared<Module>("BertEncoder");
    auto layers = std::make_shared<ModuleList>();
    for (int64_t i = 0; i < c.n_layer; ++i) {
      layers_.push_back(std::make_shared<EncoderLayer>(c));
      layers->append(layers_.back());
    }
    encoder->register_module("layer", layers);
    bert->register_module("encoder", encoder);
    if (c.masked_lm) {
      register_module(encoder_prefix(c.model_type), bert);  // *ForMaskedLM: no pooler
      mlm_ = std::make_unique<MaskedLmHead>(*this, c, words_->weight);
    } else if (c.question_answering) {
      // *ForQuestionAnswering: qa_outputs on every position, no dropout, no pooler.
      register_module(encoder_prefix(c.model_type), bert);
      classifier_ = init_dense(c.hidden_size, 2, c.initializer_range);
      register_module("qa_outputs", classifier_);
    } else if (c.per_token) {
      // *ForTokenClassification: dropout → classifier on every position; BERT without its pooler.
      register_module(encoder_prefix(c.model_type), bert);
      classifier_ = init_dense(c.hidden_size, c.num_labels, c.initializer_range);
      register_module("classifier", classifier_);
    } else if (c.multiple_choice && roberta()) {
      // RobertaForMultipleChoice: the pooler (dense → tanh on the first token), dropout, classifier (H → 1).
      auto pooler = std::make_shared<Module>("RobertaPooler");
      pooler_ = init_dense(c.hidden_size, c.hidden_size, c.initializer_range);
      pooler->register_module("dense", pooler_);
      bert->register_module("pooler", pooler);
      register_module(encoder_prefix(c.model_type), bert);
      classifier_ = init_dense(c.hidden_size, 1, c.initializer_range);
      register_module("classifier", classifier_);
    } else if (c.multiple_choice && electra()) {
      // ElectraForMultipleChoice: sequence_summary (dense → GELU → dropout on the first token), classifier (H → 1).
      register_module(encoder_prefix(c.model_type), bert);
      auto summary = std::make_shared<Module>("ElectraSequenceSummary");
      pooler_ = init_dense(c.hidden_size, c.hidden_size, c.initializer_range);
      summary->register_module("summary", pooler_);
      register_module("sequence_summary", summary);
      classifier_ = init_dense(c.hidden_size, 1, c.initializer_range);
      register_module("classifier", classifier_);
    } else if (roberta() || electra()) {
      // RobertaClassificationHead: dense → tanh → out_proj on the first token, no pooler;
      // ElectraClassificationHead the same with GELU.
      register_module(encoder_prefix(c.model_type), bert);
      auto head = std::make_shared<Module>(c.family() + "ClassificationHead");
      pooler_ = init_dense(c.hidden_size, c.hidden_size, c.initializer_range);
      classifier_ = init_dense(c.hidden_size, c.num_labels, c.initializer_range);
      head->register_module("dense", pooler_);
      head->register_module("out_proj", classifier_);
      register_module("classifier", head);
    } else {
      auto pooler = std::make_shared<Module>("BertPooler");
      pooler_ = init_dense(c.hidden_size, c.hidden_size, c.initializer_range);
      pooler->register_module("dense", pooler_);
      bert->register_module("pooler", pooler);
      register_module("bert", bert);
      classifier_ = init_dense(c.hidden_size, c.num_labels, c.initializer_range);
      register_module("classifier", classifier_);
    }
  }

  bool takes_batch() const override { return true; }
  std::vector<std::string> no_split_modules() const override { return {config_.family() + "Layer"}; }
  // BertConfig's config.json: transformers' AutoModelForSequenceClassification and
  // models.from_pretrained load the folders the Trainer writes.
  std::string hf_config_json() const override { return bert_config_json(config_, hf_dtype()).dump(2); }
  std::vector<std::string> input_names() const override {
    if (config_.question_answering) return {"input_ids", "attention_mask", "token_type_ids", "start_positions", "end_positions"};
    return {"input_ids", "attention_mask", "token_type_ids", "labels"};
  }
  std::vector<std::string> label_names() const override {
    return config_.question_answering ? question_answering_labels() : Module::label_names();
  }
  Module* input_embeddings() override { return words_.get(); }
  double floating_point_ops(const TensorMap& batch) const override { return encoder_flops(*this, batch, {words_.get(), positions_.get(), types_.get()}); }
  std::vector<IdRange> id_ranges() const override { return encoder_id_ranges(config_, /*token_types=*/true); }

  TensorMap forward_batch_impl(const TensorMap& batch) override {
    if (config_.multiple_choice) return multiple_choice_forward(batch, kName, [this](const TensorMap& rows) { return rows_forward(rows); });
    return rows_forward(batch);
  }

 private:
  TensorMap rows_forward(const TensorMap& batch) {
    at::Tensor ids = token_ids(require_field(batch, "input_ids", kName), "input_ids", kName);  // (B, T)
    const int64_t b = ids.size(0), t = ids.size(1);
    // RoBERTa's positions start after pad_token_id (2 for roberta-base: 512 tokens in 514).
    const int64_t offset = roberta() ? config_.pad_token_id + 1 : 0;
    if (t + offset > config_.max_position_embeddings)
      throw RecipeError(std::string(kName) + ": sequence length " + std::to_string(t) + " exceeds max_position_embeddings " +
                        std::to_string(config_.max_position_embeddings) + (offset ? " minus " + std::to_string(offset) : ""));
    at::Tensor types = optional_field(batch, "token_type_ids");
    types = types.defined() ? same_shape_as_ids(types, ids, "token_type_ids", kName).to(at::kLong) : at::zeros_like(ids);
    at::Tensor positions;
    if (roberta()) {  // transformers' create_position_ids_from_input_ids: padding keeps pad_token_id
      const at::Tensor real = ids.ne(config_.pad_token_id).to(at::kLong);
      positions = real.cumsum(1) * real + config_.pad_token_id;
    } else {
      positions = at::arange(t, ids.options());
    }
    at::Tensor x = words_->forward(ids) + positions_->forward(positions) + types_->forward(types);  // (B, T, H)
    x = dropout(embed_norm_->forward(x));
    if (project_) x = project_->forward(x);  // (B, T, E) → (B, T, H)
    at::Tensor hide;  // (B, 1, 1, T): true for padded keys
    at::Tensor mask = optional_field(batch, "attention_mask");
    if (mask.defined()) hide = same_shape_as_ids(mask, ids, "attention_mask", kName).eq(0).view({b, 1, 1, t});
    for (const auto& layer : layers_) x = layer->forward_masked(x, hide);
    const double p = config_.head_dropout();
    auto drop = [&](const at::Tensor& h) { return p > 0 ? at::dropout(h, p, dropout_active()) : h; };
    // (B, H) from the first ([CLS], <s>) token: BERT's pooler, or RoBERTa's and ELECTRA's head with dropout around its dense.
    if (config_.question_answering) return question_answering_outputs(classifier_->forward(x), batch, kName);  // (B, T, 2)
    at::Tensor logits;
    if (mlm_) {
      logits = mlm_->forward(x);  // (B, T, vocab_size)
    } else if (config_.per_token) {
      logits = classifier_->forward(drop(x));  // (B, T, num_labels)
    } else if (config_.multiple_choice && electra()) {
      const at::Tensor summary = at::gelu(pooler_->forward(x.select(1, 0)));
      logits = classifier_->forward(config_.summary_last_dropout > 0 ? at::dropout(summary, config_.summary_last_dropout, dropout_active()) : summary);
    } else if (config_.multiple_choice) {  // BERT's and RoBERTa's: the pooler, dropout, classifier
      logits = classifier_->forward(drop(at::tanh(pooler_->forward(x.select(1, 0)))));
    } else {
      const at::Tensor pooled = electra()   ? at::gelu(pooler_->forward(drop(x.select(1, 0))))
                                : roberta() ? at::tanh(pooler_->forward(drop(x.select(1, 0))))
                                            : at::tanh(pooler_->forward(x.select(1, 0)));
      logits = classifier_->forward(drop(pooled));  // (B, num_labels)
    }
    TensorMap out{{"logits", logits}};
    at::Tensor labels = optional_field(batch, "labels");
    if (labels.defined()) {
      out["loss"] = sequence_classification_loss(config_, logits, labels, kName);
    }
    return out;
  }

  at::Tensor dropout(const at::Tensor& x) { return config_.dropout > 0 ? at::dropout(x, config_.dropout, dropout_active()) : x; }
  bool roberta() const { return is_roberta_type(config_.model_type); }
  bool electra() const { return config_.model_type == "electra"; }


  EncoderConfig config_;
  std::shared_ptr<Embedding> words_, positions_, types_;
  std::shared_ptr<LayerNorm> embed_norm_;
  std::vector<std::shared_ptr<EncoderLayer>> layers_;
  std::shared_ptr<Linear> project_, pooler_, classifier_;
  std::unique_ptr<MaskedLmHead> mlm_;
};

}  // namespace

ModulePtr make_distilbert_classifier(const EncoderConfig& config);  // distilbert.cpp
ModulePtr make_albert_classifier(const EncoderConfig& config);      // albert.cpp

ModulePtr make_encoder_classifier(const EncoderConfig& config) {
  if (config.model_type == "distilbert") return make_distilbert_classifier(config);
  if (config.model_type == "albert") return make_albert_classifier(config);
  return std::make_shared<EncoderClassifier>(config);
}

}  // namespace runner::models
