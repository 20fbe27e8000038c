// make_encoder_classifier with model_type "distilbert": Hugging Face's
// DistilBertForSequenceClassification, name for name:
//
//   distilbert.embeddings.{word_embeddings, position_embeddings}.weight, .LayerNorm.*
//   distilbert.transformer.layer.{i}.attention.{q_lin, k_lin, v_lin, out_lin}.weight|bias
//   distilbert.transformer.layer.{i}.sa_layer_norm.*, .ffn.{lin1, lin2}.*, .output_layer_norm.*
//   pre_classifier.weight|bias (dim, dim), classifier.weight|bias (num_labels, dim)
//
// Post-LayerNorm blocks as BERT's, without token types or a pooler: the first token through
// pre_classifier → ReLU → dropout (seq_classif_dropout) → classifier.
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

const char* const kName = "models.encoder_classifier (distilbert)";

std::shared_ptr<LayerNorm> norm(int64_t dim) { return std::make_shared<LayerNorm>(std::vector<int64_t>{dim}, 1e-12); }

at::Tensor maybe_dropout(const at::Tensor& x, double p, bool training) { return p > 0 && training ? at::dropout(x, p, true) : x; }

class TransformerBlock : public Module {
 public:
  explicit TransformerBlock(const EncoderConfig& c)
      : Module("TransformerBlock"), n_head_(c.n_head), attn_dropout_(c.attention_dropout()), dropout_(c.dropout) {
    auto attention = std::make_shared<Module>("DistilBertSelfAttention");
    q_ = init_dense(c.hidden_size, c.hidden_size, c.initializer_range);
    k_ = init_dense(c.hidden_size, c.hidden_size, c.initializer_range);
    v_ = init_dense(c.hidden_size, c.hidden_size, c.initializer_range);
    out_ = init_dense(c.hidden_size, c.hidden_size, c.initializer_range);
    attention->register_module("q_lin", q_);
    attention->register_module("k_lin", k_);
    attention->register_module("v_lin", v_);
    attention->register_module("out_lin", out_);
    register_module("attention", attention);
    sa_norm_ = norm(c.hidden_size);
    register_module("sa_layer_norm", sa_norm_);
    auto ffn = std::make_shared<Module>("FFN");
    lin1_ = init_dense(c.hidden_size, c.intermediate_size, c.initializer_range);
    lin2_ = init_dense(c.intermediate_size, c.hidden_size, c.initializer_range);
    ffn->register_module("lin1", lin1_);
    ffn->register_module("lin2", lin2_);
    register_module("ffn", ffn);
    out_norm_ = norm(c.hidden_size);
    register_module("output_layer_norm", out_norm_);
  }
  // x (B, T, D); hide (B, 1, 1, T) bool, true for padded keys, or undefined.
  at::Tensor forward_masked(const at::Tensor& x, const at::Tensor& hide) {
    return hooked([&] { return maybe_checkpointed({x, hide}, [this](const std::vector<at::Tensor>& in) { return body(in[0], in[1]); }); });
  }

 private:
  at::Tensor body(const at::Tensor& x, const at::Tensor& hide) {
    const at::Tensor ctx = attend(split_heads(q_->forward(x), n_head_), split_heads(k_->forward(x), n_head_), split_heads(v_->forward(x), n_head_),
                                  hide, /*causal=*/false, attn_dropout_, dropout_active());
    const at::Tensor h = sa_norm_->forward(out_->forward(merge_heads(ctx)) + x);
    return out_norm_->forward(maybe_dropout(lin2_->forward(at::gelu(lin1_->forward(h))), dropout_, dropout_active()) + h);
  }

  int64_t n_head_;
  double attn_dropout_, dropout_;
  std::shared_ptr<Linear> q_, k_, v_, out_, lin1_, lin2_;
  std::shared_ptr<LayerNorm> sa_norm_, out_norm_;
};

class DistilBertClassifier : public Module {
 public:
  explicit DistilBertClassifier(const EncoderConfig& c) : Module(c.architecture()), config_(c) {
    check_encoder_config(c, kName);
    const double H = static_cast<double>(c.hidden_size), I = static_cast<double>(c.intermediate_size);
    check_model_scale(kName, c.n_layer,
                      static_cast<double>(c.vocab_size + c.max_position_embeddings) * H + static_cast<double>(c.n_layer) * (4 * H * H + 2 * H * I));
    auto body = std::make_shared<Module>("DistilBertModel");
    auto embeddings = std::make_shared<Module>("Embeddings");
    words_ = init_embedding(c.vocab_size, c.hidden_size, c.pad_token_id, c.initializer_range);
    positions_ = init_embedding(c.max_position_embeddings, c.hidden_size, std::nullopt, c.initializer_range);
    embed_norm_ = norm(c.hidden_size);
    embeddings->register_module("word_embeddings", words_);
    embeddings->register_module("position_embeddings", positions_);
    embeddings->register_module("LayerNorm", embed_norm_);
    body->register_module("embeddings", embeddings);
    auto transformer = std::make_shared<Module>("Transformer");
    auto layers = std::make_shared<ModuleList>();
    for (int64_t i = 0; i < c.n_layer; ++i) {
      blocks_.push_back(std::make_shared<TransformerBlock>(c));
      layers->append(blocks_.back());
    }
    transformer->register_module("layer", layers);
    body->register_module("transformer", transformer);
    register_module("distilbert", body);
    if (c.masked_lm) {
      mlm_ = std::make_unique<MaskedLmHead>(*this, c, words_->weight);
      return;
    }
    if (c.question_answering) {  // DistilBertForQuestionAnswering: dropout(qa_dropout) → qa_outputs
      classifier_ = init_dense(c.hidden_size, 2, c.initializer_range);
      register_module("qa_outputs", classifier_);
      return;
    }
    if (!c.per_token) {  // DistilBertForTokenClassification has the classifier alone
      pre_classifier_ = init_dense(c.hidden_size, c.hidden_size, c.initializer_range);
      register_module("pre_classifier", pre_classifier_);
    }
    classifier_ = init_dense(c.hidden_size, c.num_labels, c.initializer_range);
    register_module("classifier", classifier_);
  }

  bool takes_batch() const override { return true; }
  std::vector<std::string> no_split_modules() const override { return {"TransformerBlock"}; }
  std::vector<std::string> input_names() const override {
    if (config_.question_answering) return {"input_ids", "attention_mask", "start_positions", "end_positions"};
    return {"input_ids", "attention_mask", "labels"};
  }
  std::vector<std::string> label_names() const override {
    return config_.question_answering ? question_answering_labels() : Module::label_names();
  }
  Module* input_embeddings() override { return words_.get(); }
  double floating_point_ops(const TensorMap& batch) const override { return encoder_flops(*this, batch, {words_.get(), positions_.get()}); }
  std::vector<IdRange> id_ranges() const override { return encoder_id_ranges(config_, /*token_types=*/false); }
  std::string hf_config_json() const override { return bert_config_json(config_, hf_dtype()).dump(2); }

  TensorMap forward_batch_impl(const TensorMap& batch) override {
    // *ForMultipleChoice: the sequence classifier's head with one output, on each choice.
    if (config_.multiple_choice) return multiple_choice_forward(batch, kName, [this](const TensorMap& rows) { return rows_forward(rows); });
    return rows_forward(batch);
  }

  TensorMap rows_forward(const TensorMap& batch) {
    const at::Tensor ids = token_ids(require_field(batch, "input_ids", kName), "input_ids", kName);  // (B, T)
    const int64_t b = ids.size(0), t = ids.size(1);
    if (t > config_.max_position_embeddings)
      throw RecipeError(std::string(kName) + ": sequence length " + std::to_string(t) + " exceeds max_position_embeddings " +
                        std::to_string(config_.max_position_embeddings));
    at::Tensor x = embed_norm_->forward(words_->forward(ids) + positions_->forward(at::arange(t, ids.options())));  // (B, T, D)
    x = maybe_dropout(x, config_.dropout, dropout_active());
    at::Tensor hide;
    if (at::Tensor mask = optional_field(batch, "attention_mask"); mask.defined()) {
      hide = same_shape_as_ids(mask, ids, "attention_mask", kName).eq(0).view({b, 1, 1, t});
    }
    for (const auto& block : blocks_) x = block->forward_masked(x, hide);
    if (config_.question_answering)
      return question_answering_outputs(classifier_->forward(maybe_dropout(x, config_.qa_dropout, dropout_active())), batch, kName);
    // Token classification: dropout (the model's, not seq_classif_dropout) → classifier per position.
    const at::Tensor logits = mlm_                ? mlm_->forward(x)  // (B, T, vocab_size)
                              : config_.per_token ? classifier_->forward(maybe_dropout(x, config_.dropout, dropout_active()))  // (B, T, num_labels)
                                  : classifier_->forward(maybe_dropout(at::relu(pre_classifier_->forward(x.select(1, 0))), config_.head_dropout(),
                                                                       dropout_active()));  // (B, num_labels)
    TensorMap out{{"logits", logits}};
    if (at::Tensor labels = optional_field(batch, "labels"); labels.defined())
      out["loss"] = sequence_classification_loss(config_, logits, labels, kName);
    return out;
  }

 private:
  EncoderConfig config_;
  std::shared_ptr<Embedding> words_, positions_;
  std::shared_ptr<LayerNorm> embed_norm_;
  std::vector<std::shared_ptr<TransformerBlock>> blocks_;
  std::shared_ptr<Linear> pre_classifier_, classifier_;
  std::unique_ptr<MaskedLmHead> mlm_;
};

}  // namespace

ModulePtr make_distilbert_classifier(const EncoderConfig& config) { return std::make_shared<DistilBertClassifier>(config); }

}  // namespace runner::models
