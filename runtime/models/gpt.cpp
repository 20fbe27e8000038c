// make_gpt: a GPT-2 decoder whose state dict is Hugging Face GPT2LMHeadModel's, name for
// name and layout for layout, so HF checkpoints load (pretrained.cpp) and ours load in HF:
//
//   transformer.wte.weight (V, C)          transformer.wpe.weight (block, C)
//   transformer.h.{i}.ln_1.weight|bias (C)
//   transformer.h.{i}.attn.c_attn.weight (C, 3C), .bias (3C)    q | k | v along the columns
//   transformer.h.{i}.attn.c_proj.weight (C, C), .bias (C)
//   transformer.h.{i}.ln_2.weight|bias (C)
//   transformer.h.{i}.mlp.c_fc.weight (C, 4C), .bias (4C)
//   transformer.h.{i}.mlp.c_proj.weight (4C, C), .bias (C)
//   transformer.ln_f.weight|bias (C)
//   lm_head.weight (V, C): the same tensor as transformer.wte.weight
//   score.weight (num_labels, C): instead of lm_head in GPT2ForSequenceClassification (num_labels > 0)
//
// The c_* weights are HF "Conv1D" layers, stored (in, out) and applied as y = x·W + b.
// Blocks are pre-LayerNorm: x += attn(ln_1(x)); x += mlp(ln_2(x)).
//
// attention_mask is not read: attention is causal, so with right padding (the collators'
// default) the logits at real tokens do not depend on the padding after them, and padded
// positions carry labels of -100. Left-padded batches would need a key mask, which GPT-2
// training never uses. position_ids, when the batch has them, index the position embeddings
// (HF GPT2Model's position_ids; attention stays causal over the whole row, as HF's eager and
// SDPA attention keep it for packed rows).
#include <c10/core/GradMode.h>
#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "runtime/core/errors.h"
#include "runtime/models/attention.h"
#include "runtime/models/batch_inputs.h"
#include "runtime/models/builtin.h"
#include "runtime/models/classifier_labels.h"
#include "runtime/models/host_facts.h"
#include "runtime/models/kv_cache.h"
#include "runtime/models/layers.h"
#include "runtime/models/llama_config.h"  // ids_json
#include "runtime/models/parameter_store.h"
#include "runtime/models/loss_only.h"
#include "runtime/models/losses.h"
#include "runtime/kernels/gelu.h"

namespace runner::models {

namespace {

constexpr double kInitStd = 0.02;  // HF initializer_range

at::Tensor maybe_dropout(const at::Tensor& x, double p, bool training) {
  return p > 0 && training ? at::dropout(x, p, true) : x;
}

class CausalSelfAttention : public Module {
 public:
  CausalSelfAttention(const GPTConfig& c, double proj_std) : Module("GPT2Attention"), n_head_(c.n_head), attn_dropout_(c.attention_dropout()), dropout_(c.dropout) {
    c_attn_ = std::make_shared<Conv1D>(c.n_embd, 3 * c.n_embd, c.bias, kInitStd);
    c_proj_ = std::make_shared<Conv1D>(c.n_embd, c.n_embd, c.bias, proj_std);
    register_module("c_attn", c_attn_);
    register_module("c_proj", c_proj_);
  }
  bool input_adapted() const { return c_attn_->has_adapter(); }  // a LoRA branch reads the input too
  // x (B, T, C): each position attends to itself and the positions before it.
  at::Tensor forward_impl(const at::Tensor& x) override {
    std::vector<at::Tensor> qkv = c_attn_->forward(x).chunk(3, -1);  // 3 × (B, T, C)
    at::Tensor y = attend(split_heads(qkv[0], n_head_), split_heads(qkv[1], n_head_), split_heads(qkv[2], n_head_), at::Tensor(),
                          /*causal=*/true, attn_dropout_, dropout_active());  // (B, H, T, D)
    return maybe_dropout(c_proj_->forward(merge_heads(y)), dropout_, dropout_active());  // (B, T, C)
  }
  // Incremental decoding (eval): x (B, T, C) after the cache's positions; `hide` (bool,
  // broadcastable to (B, H, T, T_past + T)) or `causal` when there is no past; this layer's
  // keys and values are appended to (*past_k, *past_v).
  at::Tensor forward_cached(const at::Tensor& x, const at::Tensor& hide, bool causal, at::Tensor* past_k, at::Tensor* past_v) {
    return hooked([&] {
      std::vector<at::Tensor> qkv = c_attn_->forward(x).chunk(3, -1);
      at::Tensor k = split_heads(qkv[1], n_head_), v = split_heads(qkv[2], n_head_);
      if (past_k->defined()) k = at::cat({*past_k, k}, 2), v = at::cat({*past_v, v}, 2);
      *past_k = k;
      *past_v = v;
      return c_proj_->forward(merge_heads(attend(split_heads(qkv[0], n_head_), k, v, hide, causal, 0.0, false)));
    });
  }

 private:
  int64_t n_head_;
  double attn_dropout_, dropout_;
  std::shared_ptr<Conv1D> c_attn_, c_proj_;
};

class GPTMLP : public Module {
 public:
  GPTMLP(const GPTConfig& c, double proj_std) : Module("GPT2MLP"), dropout_(c.dropout) {
    c_fc_ = std::make_shared<Conv1D>(c.n_embd, 4 * c.n_embd, c.bias, kInitStd);
    c_proj_ = std::make_shared<Conv1D>(4 * c.n_embd, c.n_embd, c.bias, proj_std);
    register_module("c_fc", c_fc_);
    register_module("c_proj", c_proj_);
  }
  bool input_adapted() const { return c_fc_->has_adapter(); }  // a LoRA branch reads the input too
  at::Tensor forward_impl(const at::Tensor& x) override {  // (B, T, C) -> (B, T, C)
    at::Tensor h = kernels::gelu_tanh(c_fc_->forward(x));  // (B, T, 4C); HF "gelu_new"
    return maybe_dropout(c_proj_->forward(h), dropout_, dropout_active());
  }

 private:
  double dropout_;
  std::shared_ptr<Conv1D> c_fc_, c_proj_;
};

class Block : public Module {
 public:
  Block(const GPTConfig& c, double proj_std) : Module("GPT2Block") {
    ln_1_ = std::make_shared<LayerNorm>(std::vector<int64_t>{c.n_embd}, c.layer_norm_epsilon, true, c.bias);
    attn_ = std::make_shared<CausalSelfAttention>(c, proj_std);
    ln_2_ = std::make_shared<LayerNorm>(std::vector<int64_t>{c.n_embd}, c.layer_norm_epsilon, true, c.bias);
    mlp_ = std::make_shared<GPTMLP>(c, proj_std);
    register_module("ln_1", ln_1_);
    register_module("attn", attn_);
    register_module("ln_2", ln_2_);
    register_module("mlp", mlp_);
  }
  at::Tensor forward_impl(const at::Tensor& x) override {  // (B, T, C)
    // The norms feed c_attn and c_fc only, so under autocast on a GPU they may write the
    // matmul's dtype (LayerNorm::feeds_matmuls); not when a LoRA adapter reads their output
    // too: peft's branch sees the fp32 output, and the two consumers' gradients sum in fp32.
    ln_1_->feeds_matmuls = !attn_->input_adapted();
    ln_2_->feeds_matmuls = !mlp_->input_adapted();
    at::Tensor h = x + attn_->forward(ln_1_->forward(x));
    return h + mlp_->forward(ln_2_->forward(h));
  }
  // Inside hooked(): a sharding engine gathers the block's parameters around it (GPT2Block is
  // the ZeRO-3 / FSDP unit).
  at::Tensor forward_cached(const at::Tensor& x, const at::Tensor& hide, bool causal, at::Tensor* past_k, at::Tensor* past_v) {
    return hooked([&] {
      ln_1_->feeds_matmuls = !attn_->input_adapted();
      ln_2_->feeds_matmuls = !mlp_->input_adapted();
      at::Tensor h = x + attn_->forward_cached(ln_1_->forward(x), hide, causal, past_k, past_v);
      return h + mlp_->forward(ln_2_->forward(h));
    });
  }

 private:
  std::shared_ptr<LayerNorm> ln_1_, ln_2_;
  std::shared_ptr<CausalSelfAttention> attn_;
  std::shared_ptr<GPTMLP> mlp_;
};

std::shared_ptr<Embedding> gpt_embedding(int64_t num, int64_t dim) {
  auto e = std::make_shared<Embedding>(num, dim);
  if (meta_init_active()) return e;  // a placeholder: the files give the values
  c10::NoGradGuard no_grad;
  e->weight.normal_(0.0, kInitStd);
  return e;
}

class GPT : public Module {
 public:
  explicit GPT(const GPTConfig& c) : Module(c.num_labels > 0 ? "GPT2ForSequenceClassification" : "GPT2LMHeadModel"), config_(c) {
    if (c.num_labels < 0) throw RecipeError("models.gpt: num_labels must be >= 0 (0: the language model)");
    if (!c.labels.empty() && static_cast<int64_t>(c.labels.size()) != c.num_labels)
      throw RecipeError("models.gpt: labels names " + std::to_string(c.labels.size()) + " labels but num_labels is " + std::to_string(c.num_labels));
    if (c.vocab_size <= 0 || c.block_size <= 0 || c.n_layer <= 0 || c.n_head <= 0 || c.n_embd <= 0)
      throw RecipeError("models.gpt: vocab_size, block_size, n_layer, n_head and n_embd must be > 0");
    if (c.n_embd % c.n_head != 0)
      throw RecipeError("models.gpt: n_embd (" + std::to_string(c.n_embd) + ") must be divisible by n_head (" +
                        std::to_string(c.n_head) + ")");
    for (const auto& [key, p] : {std::pair<const char*, double>{"dropout", c.dropout}, {"attn_dropout", c.attention_dropout()},
                                 {"embd_dropout", c.embedding_dropout()}})
      if (p < 0 || p >= 1) throw RecipeError(std::string("models.gpt: ") + key + " must be in [0, 1)");
    const double E = static_cast<double>(c.n_embd);
    check_model_scale("models.gpt", c.n_layer,
                      (static_cast<double>(c.vocab_size) + static_cast<double>(c.block_size)) * E + static_cast<double>(c.n_layer) * (12 * E * E + 13 * E));
    // GPT-2 scales the init of the projections that write into the residual stream by
    // 1/sqrt(2·n_layer): each block adds two of them.
    const double proj_std = kInitStd / std::sqrt(2.0 * static_cast<double>(c.n_layer));
    auto transformer = std::make_shared<Module>("GPT2Model");
    wte_ = gpt_embedding(c.vocab_size, c.n_embd);
    wpe_ = gpt_embedding(c.block_size, c.n_embd);
    transformer->register_module("wte", wte_);
    transformer->register_module("wpe", wpe_);
    auto h = std::make_shared<ModuleList>();
    for (int64_t i = 0; i < c.n_layer; ++i) {
      blocks_.push_back(std::make_shared<Block>(c, proj_std));
      h->append(blocks_.back());
    }
    transformer->register_module("h", h);
    ln_f_ = std::make_shared<LayerNorm>(std::vector<int64_t>{c.n_embd}, c.layer_norm_epsilon, true, c.bias);
    ln_f_->feeds_matmuls = true;  // the LM head (never adapted) or the fused loss, which casts to the same dtype
    transformer->register_module("ln_f", ln_f_);
    register_module("transformer", transformer);
    if (c.num_labels > 0) {  // GPT2ForSequenceClassification: score, no lm_head
      score_ = score_head(c.n_embd, c.num_labels, kInitStd);
      register_module("score", score_);
      return;
    }
    // Tied output projection: the same tensor under a second name (listed once by
    // named_parameters, twice in the state dict, as in PyTorch).
    auto lm_head = std::make_shared<Module>("Linear");
    lm_head->register_parameter("weight", wte_->weight);
    register_module("lm_head", lm_head);
    // Not persistent: derived from block_size, and HF checkpoints' attn.bias buffers are
    // dropped on load rather than matched.
  }

  bool takes_batch() const override { return true; }
  bool shifts_labels() const override { return !score_; }
  std::vector<std::string> input_names() const override { return {"input_ids", "position_ids", "labels"}; }
  bool attends_across_packed_sequences() const override { return true; }
  Module* input_embeddings() override { return wte_.get(); }
  std::vector<IdRange> id_ranges() const override {
    const std::string vocab = "vocab_size = " + std::to_string(config_.vocab_size);
    std::vector<IdRange> r{{"input_ids", config_.vocab_size, false, vocab},
                           {"position_ids", config_.block_size, false, "block_size = " + std::to_string(config_.block_size)}};
    if (!score_) r.push_back({"labels", config_.vocab_size, true, vocab});
    else if (config_.num_labels > 1) r.push_back({"labels", config_.num_labels, true, "num_labels = " + std::to_string(config_.num_labels)});
    return r;
  }
  std::vector<std::string> no_split_modules() const override { return {"GPT2Block"}; }
  // GPT2Config's config.json, so transformers and models.from_pretrained load the folders the
  // Trainer writes. Without biases the model is not GPT-2's architecture: no config then.
  std::string hf_config_json() const override {
    if (!config_.bias) return "";
    const GPTConfig& c = config_;
    nlohmann::json j{{"architectures", {type_name()}}, {"model_type", "gpt2"}, {"vocab_size", c.vocab_size},
                          {"n_positions", c.block_size}, {"n_ctx", c.block_size}, {"n_embd", c.n_embd}, {"n_layer", c.n_layer},
                          {"n_head", c.n_head}, {"n_inner", nullptr}, {"activation_function", "gelu_new"},
                          {"resid_pdrop", c.dropout}, {"embd_pdrop", c.embedding_dropout()}, {"attn_pdrop", c.attention_dropout()},
                          {"layer_norm_epsilon", c.layer_norm_epsilon}, {"initializer_range", kInitStd},
                          {"tie_word_embeddings", true}, {"dtype", hf_dtype()}};
    for (const auto& [key, ids] : {std::pair<const char*, const std::vector<int64_t>&>{"bos_token_id", c.bos_token_id},
                                   {"eos_token_id", c.eos_token_id}, {"pad_token_id", c.pad_token_id}})
      if (!ids.empty()) j[key] = ids_json(ids);
    if (score_) add_classifier_labels(j, {c.num_labels, c.labels, c.problem_type});
    return j.dump(2);
  }

  TensorMap forward_batch_impl(const TensorMap& batch) override {
    at::Tensor ids = token_ids(require_field(batch, "input_ids", "models.gpt"), "input_ids", "models.gpt");  // (B, T)
    const int64_t t = ids.size(1);
    if (t > config_.block_size)
      throw RecipeError("models.gpt: sequence length " + std::to_string(t) + " exceeds block_size " +
                        std::to_string(config_.block_size) + " (truncate the inputs or raise block_size)");
    if (t == 0) throw RecipeError("models.gpt: input_ids has no tokens");
    at::Tensor positions = optional_field(batch, "position_ids");
    if (positions.defined()) {
      positions = token_ids(positions, "position_ids", "models.gpt");
      if (!positions.sizes().equals(ids.sizes()))
        throw RecipeError("models.gpt: position_ids must have input_ids' shape " + shape_string(ids.sizes()));
    } else {
      positions = at::arange(t, ids.options());
    }
    at::Tensor x = wte_->forward(ids) + wpe_->forward(positions);  // (B, T, C)
    x = maybe_dropout(x, config_.embedding_dropout(), dropout_active());
    for (const auto& block : blocks_) x = block->forward(x);
    x = ln_f_->forward(x);
    at::Tensor labels = optional_field(batch, "labels");
    if (score_) {  // HF's GPT2ForSequenceClassification (classifier_labels.h)
      TensorMap out{{"logits", score_->forward(last_token_rows(x, ids, config_.pad_token_id, "models.gpt"))}};  // (B, num_labels)
      if (labels.defined())
        out["loss"] = pooled_classification_loss({config_.num_labels, config_.labels, config_.problem_type}, out["logits"], labels, "models.gpt");
      return out;
    }
    if (labels.defined() && fused_linear_cross_entropy() && loss_only())
      return {{"loss", fused_shifted_lm_loss(x, wte_->weight, labels, "models.gpt")}};  // no (B, T, V) logits
    at::Tensor logits = at::linear(x, wte_->weight);  // (B, T, V)
    TensorMap out{{"logits", logits}};
    if (labels.defined()) out["loss"] = shifted_lm_loss(logits, labels, "models.gpt");
    return out;
  }

  bool can_generate() const override { return !score_; }
  // The generation path (Module::forward_cached): position ids from the attention mask as
  // transformers' generate makes them for GPT-2 (cumsum - 1, padding at 1), a key mask for
  // left padding, and each block's keys and values kept in the cache.
  at::Tensor forward_cached(const at::Tensor& ids, const at::Tensor& attention_mask, KVCache& cache, int64_t logits_to_keep) override {
    if (score_) throw RecipeError("generation: GPT2ForSequenceClassification is a classifier; it does not generate");
    const int64_t past = cache.length(), t = ids.size(1), total = past + t;
    if (total > config_.block_size)
      throw RecipeError("generation: " + std::to_string(total) + " positions exceed GPT-2's n_positions (block_size) " +
                        std::to_string(config_.block_size) + "; lower max_new_tokens or shorten the prompt");
    const at::Tensor& mask = attention_mask;
    if (mask.defined() && mask.size(1) != total)
      throw RecipeError("generation: attention_mask covers " + std::to_string(mask.size(1)) + " positions, cache and input " +
                        std::to_string(total));
    at::Tensor positions;
    const bool padded = mask.defined() && !mask_hides_nothing(mask);
    if (mask.defined()) positions = (mask.to(at::kLong).cumsum(-1) - 1).masked_fill(mask.eq(0), 1).narrow(1, past, t);
    else positions = at::arange(past, total, ids.options().dtype(at::kLong)).unsqueeze(0).expand({ids.size(0), t});
    // No past: causal attention as in training. With a past, one new position sees every key;
    // several (or any padding) need the offset causal mask.
    at::Tensor hide;
    const bool causal = past == 0 && !padded;
    if (!causal && (t > 1 || padded)) {
      const auto opts = at::TensorOptions().dtype(at::kLong).device(ids.device());
      hide = at::arange(total, opts).unsqueeze(0).gt(at::arange(past, total, opts).unsqueeze(1)).view({1, 1, t, total});
      if (padded) hide = hide.logical_or(mask.eq(0).view({mask.size(0), 1, 1, total}));
    }
    if (cache.keys.empty()) cache.keys.resize(blocks_.size()), cache.values.resize(blocks_.size());
    at::Tensor x = wte_->forward(ids) + wpe_->forward(positions);  // (B, T, C)
    for (size_t i = 0; i < blocks_.size(); ++i) x = blocks_[i]->forward_cached(x, hide, causal, &cache.keys[i], &cache.values[i]);
    if (logits_to_keep > 0 && logits_to_keep < t) x = x.narrow(1, t - logits_to_keep, logits_to_keep);
    return at::linear(ln_f_->forward(x), wte_->weight);
  }

  // HF: 6 · (parameters outside embedding layers) · tokens, forward and backward together.
  double floating_point_ops(const TensorMap& batch) const override {
    auto it = batch.find("input_ids");
    if (it == batch.end() || !it->second.defined()) return 0.0;
    const int64_t non_embedding = num_parameters() - wte_->weight.numel() - wpe_->weight.numel();
    return 6.0 * static_cast<double>(non_embedding) * static_cast<double>(it->second.numel());
  }

 private:
  GPTConfig config_;
  std::shared_ptr<Embedding> wte_, wpe_;
  std::vector<std::shared_ptr<Block>> blocks_;
  std::shared_ptr<LayerNorm> ln_f_;
  std::shared_ptr<Linear> score_;  // a sequence classifier's head
};

}  // namespace

ModulePtr make_gpt(const GPTConfig& config) { return std::make_shared<GPT>(config); }

}  // namespace runner::models
