// make_encoder_classifier with model_type "albert": Hugging Face's AlbertForSequenceClassification
// (and AlbertForTokenClassification), name for name:
//
//   albert.embeddings.{word_embeddings, position_embeddings, token_type_embeddings}.weight (·, E), .LayerNorm.*
//   albert.encoder.embedding_hidden_mapping_in.weight (H, E) | .bias
//   albert.encoder.albert_layer_groups.{g}.albert_layers.{j}.full_layer_layer_norm.*
//   albert.encoder.albert_layer_groups.{g}.albert_layers.{j}.attention.{query, key, value, dense}.*, .attention.LayerNorm.*
//   albert.encoder.albert_layer_groups.{g}.albert_layers.{j}.ffn.* (I, H), .ffn_output.* (H, I)
//   albert.pooler.weight|bias (H, H), classifier.weight|bias (num_labels, H)
//
// ALBERT factorises the embedding (width E, projected to H) and shares layers: its
// num_hidden_layers steps run the num_hidden_groups groups in turn (step i runs group
// floor(i / (layers / groups))), each group its inner_group_num layers. Post-LayerNorm blocks as
// BERT's, hidden_act gelu_new (tanh GELU) by default; no dropout after the feed-forward, as
// transformers' AlbertLayer. The pooler (a Linear, then tanh, on the first token) → dropout
// (classifier_dropout_prob) → classifier.
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

const char* const kName = "models.encoder_classifier (albert)";

at::Tensor maybe_dropout(const at::Tensor& x, double p, bool training) { return p > 0 && training ? at::dropout(x, p, true) : x; }

std::shared_ptr<LayerNorm> norm(int64_t dim, double eps) { return std::make_shared<LayerNorm>(std::vector<int64_t>{dim}, eps); }

class AlbertLayer : public Module {
 public:
  explicit AlbertLayer(const EncoderConfig& c)
      : Module("AlbertLayer"), n_head_(c.n_head), attn_dropout_(c.attention_dropout()), dropout_(c.dropout), tanh_gelu_(c.hidden_act == "gelu_new") {
    out_norm_ = norm(c.hidden_size, c.layer_norm_eps);
    register_module("full_layer_layer_norm", out_norm_);
    auto attention = std::make_shared<Module>("AlbertAttention");
    q_ = init_dense(c.hidden_size, c.hidden_size, c.initializer_range);
    k_ = init_dense(c.hidden_size, c.hidden_size, c.initializer_range);
    v_ = init_dense(c.hidden_size, c.hidden_size, c.initializer_range);
    dense_ = init_dense(c.hidden_size, c.hidden_size, c.initializer_range);
    attn_norm_ = norm(c.hidden_size, c.layer_norm_eps);
    attention->register_module("query", q_);
    attention->register_module("key", k_);
    attention->register_module("value", v_);
    attention->register_module("dense", dense_);
    attention->register_module("LayerNorm", attn_norm_);
    register_module("attention", attention);
    ffn_ = init_dense(c.hidden_size, c.intermediate_size, c.initializer_range);
    ffn_output_ = init_dense(c.intermediate_size, c.hidden_size, c.initializer_range);
    register_module("ffn", ffn_);
    register_module("ffn_output", ffn_output_);
  }
  // x (B, T, H); hide (B, 1, 1, T) bool, true for padded keys, or undefined.
  at::Tensor forward_masked(const at::Tensor& x, const at::Tensor& hide) {
    return hooked([&] { return maybe_checkpointed({x, hide}, [this](const std::vector<at::Tensor>& in) { return body(in[0], in[1]); }); });
  }

 private:
  at::Tensor body(const at::Tensor& x, const at::Tensor& hide) {
    const at::Tensor ctx = attend(split_heads(q_->forward(x), n_head_), split_heads(k_->forward(x), n_head_), split_heads(v_->forward(x), n_head_),
                                  hide, /*causal=*/false, attn_dropout_, dropout_active());
    const at::Tensor h = attn_norm_->forward(x + maybe_dropout(dense_->forward(merge_heads(ctx)), dropout_, dropout_active()));
    const at::Tensor inner = ffn_->forward(h);
    return out_norm_->forward(ffn_output_->forward(tanh_gelu_ ? at::gelu(inner, "tanh") : at::gelu(inner)) + h);
  }

  int64_t n_head_;
  double attn_dropout_, dropout_;
  bool tanh_gelu_;
  std::shared_ptr<Linear> q_, k_, v_, dense_, ffn_, ffn_output_;
  std::shared_ptr<LayerNorm> attn_norm_, out_norm_;
};

class AlbertClassifier : public Module {
 public:
  explicit AlbertClassifier(const EncoderConfig& c) : Module(c.architecture()), config_(c) {
    check_encoder_config(c, kName);
    const int64_t E = c.embedding_size > 0 ? c.embedding_size : c.hidden_size;
    if (c.hidden_groups < 1 || c.hidden_groups > c.n_layer || c.inner_group_num < 1)
      throw RecipeError(std::string(kName) + ": num_hidden_groups must be in [1, num_hidden_layers] and inner_group_num >= 1");
    if (c.hidden_act != "gelu" && c.hidden_act != "gelu_new")
      throw RecipeError(std::string(kName) + ": hidden_act \"" + c.hidden_act + "\" is not supported (gelu_new, gelu)");
    const double H = static_cast<double>(c.hidden_size), I = static_cast<double>(c.intermediate_size);
    check_model_scale(kName, c.n_layer,
                      static_cast<double>(c.vocab_size + c.max_position_embeddings + c.type_vocab_size + c.hidden_size) * static_cast<double>(E) +
                          static_cast<double>(c.hidden_groups * c.inner_group_num) * (4 * H * H + 2 * H * I));
    auto body = std::make_shared<Module>("AlbertModel");
    auto embeddings = std::make_shared<Module>("AlbertEmbeddings");
    words_ = init_embedding(c.vocab_size, E, c.pad_token_id, c.initializer_range);
    positions_ = init_embedding(c.max_position_embeddings, E, std::nullopt, c.initializer_range);
    types_ = init_embedding(c.type_vocab_size, E, std::nullopt, c.initializer_range);
    embed_norm_ = norm(E, c.layer_norm_eps);
    embeddings->register_module("word_embeddings", words_);
    embeddings->register_module("position_embeddings", positions_);
    embeddings->register_module("token_type_embeddings", types_);
    embeddings->register_module("LayerNorm", embed_norm_);
    body->register_module("embeddings", embeddings);
    auto encoder = std::make_shared<Module>("AlbertTransformer");
    mapping_in_ = init_dense(E, c.hidden_size, c.initializer_range);
    encoder->register_module("embedding_hidden_mapping_in", mapping_in_);
    auto groups = std::make_shared<ModuleList>();
    for (int64_t g = 0; g < c.hidden_groups; ++g) {
      auto group = std::make_shared<Module>("AlbertLayerGroup");
      auto layers = std::make_shared<ModuleList>();
      groups_.emplace_back();
      for (int64_t j = 0; j < c.inner_group_num; ++j) {
        groups_.back().push_back(std::make_shared<AlbertLayer>(c));
        layers->append(groups_.back().back());
      }
      group->register_module("albert_layers", layers);
      groups->append(group);
    }
    encoder->register_module("albert_layer_groups", groups);
    body->register_module("encoder", encoder);
    if (!c.per_token && !c.masked_lm && !c.question_answering) {  // the token, masked-LM and QA models' bodies have no pooler
      pooler_ = init_dense(c.hidden_size, c.hidden_size, c.initializer_range);
      body->register_module("pooler", pooler_);
    }
    register_module("albert", body);
    if (c.masked_lm) {
      mlm_ = std::make_unique<MaskedLmHead>(*this, c, words_->weight);
      return;
    }
    classifier_ = init_dense(c.hidden_size, c.question_answering ? 2 : c.num_labels, c.initializer_range);
    register_module(c.question_answering ? "qa_outputs" : "classifier", classifier_);  // AlbertForQuestionAnswering: no dropout
  }

  bool takes_batch() const override { return true; }
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
    at::Tensor types = optional_field(batch, "token_type_ids");
    types = types.defined() ? same_shape_as_ids(types, ids, "token_type_ids", kName).to(at::kLong) : at::zeros_like(ids);
    at::Tensor x = words_->forward(ids) + types_->forward(types) + positions_->forward(at::arange(t, ids.options()));  // (B, T, E)
    x = mapping_in_->forward(maybe_dropout(embed_norm_->forward(x), config_.dropout, dropout_active()));             // (B, T, H)
    at::Tensor hide;
    if (at::Tensor mask = optional_field(batch, "attention_mask"); mask.defined())
      hide = same_shape_as_ids(mask, ids, "attention_mask", kName).eq(0).view({b, 1, 1, t});
    const int64_t layers = config_.n_layer, n_groups = static_cast<int64_t>(groups_.size());
    for (int64_t i = 0; i < layers; ++i)  // transformers' int(i / (layers / groups)), in doubles
      for (const auto& layer : groups_[static_cast<size_t>(static_cast<double>(i) / (static_cast<double>(layers) / static_cast<double>(n_groups)))])
        x = layer->forward_masked(x, hide);
    if (config_.question_answering) return question_answering_outputs(classifier_->forward(x), batch, kName);  // (B, T, 2)
    const double p = config_.head_dropout();
    const at::Tensor logits = mlm_               ? mlm_->forward(x)                                        // (B, T, vocab_size)
                              : config_.per_token ? classifier_->forward(maybe_dropout(x, p, dropout_active()))  // (B, T, num_labels)
                                                : classifier_->forward(maybe_dropout(at::tanh(pooler_->forward(x.select(1, 0))), p, dropout_active()));
    TensorMap out{{"logits", logits}};
    if (at::Tensor labels = optional_field(batch, "labels"); labels.defined())
      out["loss"] = sequence_classification_loss(config_, logits, labels, kName);
    return out;
  }

 private:

  EncoderConfig config_;
  std::shared_ptr<Embedding> words_, positions_, types_;
  std::shared_ptr<LayerNorm> embed_norm_;
  std::shared_ptr<Linear> mapping_in_, pooler_, classifier_;
  std::vector<std::vector<std::shared_ptr<AlbertLayer>>> groups_;
  std::unique_ptr<MaskedLmHead> mlm_;
};

}  // namespace

ModulePtr make_albert_classifier(const EncoderConfig& config) { return std::make_shared<AlbertClassifier>(config); }

}  // namespace runner::models
