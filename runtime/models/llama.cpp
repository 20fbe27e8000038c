// make_llama: the Llama-family decoder, with Hugging Face LlamaForCausalLM's state dict
// (Qwen2ForCausalLM and MistralForCausalLM use the same names), so `from_pretrained` loads
// hub folders and transformers loads what runner writes:
//
//   model.embed_tokens.weight (V, C)
//   model.layers.{i}.input_layernorm.weight (C)            RMSNorm
//   model.layers.{i}.self_attn.q_proj.weight (H·D, C)      [.bias with qkv_bias]
//   model.layers.{i}.self_attn.k_proj.weight (Hkv·D, C)    [.bias]
//   model.layers.{i}.self_attn.v_proj.weight (Hkv·D, C)    [.bias]
//   model.layers.{i}.self_attn.o_proj.weight (C, H·D)      [.bias with o_bias]
//   model.layers.{i}.post_attention_layernorm.weight (C)
//   model.layers.{i}.mlp.gate_proj.weight (I, C), up_proj (I, C), down_proj (C, I)  [.bias with mlp_bias]
//   model.norm.weight (C)
//   lm_head.weight (V, C): its own tensor, or embed_tokens' with tie_word_embeddings
//   score.weight (num_labels, C): instead of lm_head in *ForSequenceClassification (num_labels > 0)
//
//   model.layers.{i}.self_attn.q_norm.weight (D), k_norm (D)  Qwen 3, Gemma 3
//   model.layers.{i}.pre_feedforward_layernorm.weight (C), post_feedforward_layernorm (C)  Gemma 3
//
// Blocks are pre-norm: x += attn(rms(x)); x += down(silu(gate(rms(x))) · up(rms(x))). Gemma 3's
// are sandwiched: x += rms(attn(rms(x))); x += rms(down(gelu(gate(rms(x))) · up(rms(x)))).
// Attention: rotary embeddings on q and k, each group of H/Hkv query heads shares one key/value
// head (grouped-query attention), causal, optionally a sliding window.
#include <cmath>
#include <optional>

#include <ATen/autocast_mode.h>
#include <c10/core/GradMode.h>

#include "runtime/core/errors.h"
#include "runtime/kernels/packed_attention.h"
#include "runtime/models/attention.h"
#include "runtime/models/batch_inputs.h"
#include "runtime/models/builtin.h"
#include "runtime/models/classifier_labels.h"
#include "runtime/models/parameter_store.h"
#include "runtime/models/host_facts.h"
#include "runtime/models/kv_cache.h"
#include "runtime/models/layers.h"
#include "runtime/models/llama_config.h"
#include "runtime/models/llama_layers.h"
#include "runtime/models/loss_only.h"
#include "runtime/models/losses.h"
#include "runtime/models/rope.h"

namespace runner::models {

namespace {

class Llama : public Module {
 public:
  explicit Llama(LlamaConfig c)
      : Module(llama_architecture(c.model_type, c.num_labels > 0)),
        config_(validated(std::move(c))) {
    const LlamaConfig& k = config_;
    const std::string prefix = llama_class_prefix(k.model_type);
    auto body = std::make_shared<Module>(llama_body_class(k.model_type));
    // Gemma's embedding row of pad_token_id gets no gradient (nn.Embedding's padding_idx).
    std::optional<int64_t> padding_row;
    if (k.gemma && k.pad_token_id.size() == 1 && k.pad_token_id[0] >= 0 && k.pad_token_id[0] < k.vocab_size) padding_row = k.pad_token_id[0];
    embed_ = std::make_shared<Embedding>(k.vocab_size, k.hidden_size, padding_row);
    if (k.gemma) embed_->output_scale = std::sqrt(static_cast<double>(k.hidden_size));  // 55.4256 is 55.5 in bf16, as in transformers
    if (!meta_init_active()) {
      c10::NoGradGuard no_grad;
      embed_->weight.normal_(0.0, k.initializer_range);
      if (padding_row) embed_->weight[*padding_row].zero_();  // HF _init_weights
    }
    body->register_module("embed_tokens", embed_);
    auto layers = std::make_shared<ModuleList>();
    for (int64_t i = 0; i < k.num_hidden_layers; ++i) {
      const bool sliding = k.sliding_window > 0 && (k.sliding_layers.empty() || k.sliding_layers[static_cast<size_t>(i)]);
      layers_.push_back(std::make_shared<LlamaDecoderLayer>(k, prefix, sliding));
      layers->append(layers_.back());
    }
    body->register_module("layers", layers);
    norm_ = std::make_shared<RMSNorm>(k.hidden_size, k.rms_norm_eps, k.gemma);
    body->register_module("norm", norm_);
    // HF's model.rotary_emb.inv_freq: a non-persistent fp32 buffer, so it moves with the
    // model instead of being copied to the device at every forward.
    auto rotary = std::make_shared<Module>(prefix + "RotaryEmbedding");
    inv_freq_ = rotary->register_buffer("inv_freq", rope_inv_freq(k.rope, k.head_dim), /*persistent=*/false);
    if (k.gemma) local_inv_freq_ = rotary->register_buffer("local_inv_freq", rope_inv_freq(k.local_rope, k.head_dim), /*persistent=*/false);
    body->register_module("rotary_emb", rotary);
    register_module("model", body);
    if (k.num_labels > 0) {  // *ForSequenceClassification: score, no lm_head
      score_ = score_head(k.hidden_size, k.num_labels, k.initializer_range);
      register_module("score", score_);
      return;
    }
    auto head = std::make_shared<Module>("Linear");
    if (k.tie_word_embeddings) {
      lm_head_ = embed_->weight;
      head->register_parameter("weight", lm_head_);
    } else {
      c10::NoGradGuard no_grad;
      lm_head_ = head->register_parameter("weight", at::empty({k.vocab_size, k.hidden_size}, param_options()).normal_(0.0, k.initializer_range));
    }
    register_module("lm_head", head);
  }

  bool takes_batch() const override { return true; }
  bool shifts_labels() const override { return !classifier(); }
  bool can_generate() const override { return !classifier(); }
  std::vector<std::string> input_names() const override { return {"input_ids", "attention_mask", "position_ids", "labels"}; }
  Module* input_embeddings() override { return embed_.get(); }
  std::vector<IdRange> id_ranges() const override {
    const std::string vocab = "vocab_size = " + std::to_string(config_.vocab_size);
    if (!classifier()) return {{"input_ids", config_.vocab_size, false, vocab}, {"labels", config_.vocab_size, true, vocab}};
    std::vector<IdRange> r{{"input_ids", config_.vocab_size, false, vocab}};
    if (config_.num_labels > 1) r.push_back({"labels", config_.num_labels, true, "num_labels = " + std::to_string(config_.num_labels)});
    return r;
  }
  std::vector<std::string> no_split_modules() const override { return {llama_class_prefix(config_.model_type) + "DecoderLayer"}; }
  std::string hf_config_json() const override {
    nlohmann::json j = nlohmann::json::parse(llama_config_json(config_));
    j["dtype"] = hf_dtype();
    return j.dump(2);
  }

  TensorMap forward_batch_impl(const TensorMap& batch) override {
    const char* kName = "models.llama";
    at::Tensor ids = token_ids(require_field(batch, "input_ids", kName), "input_ids", kName);  // (B, T)
    if (ids.size(1) == 0) throw RecipeError("models.llama: input_ids has no tokens");
    at::Tensor mask = optional_field(batch, "attention_mask");
    at::Tensor positions = optional_field(batch, "position_ids");
    if (mask.defined() && !mask.sizes().equals(ids.sizes()))
      throw RecipeError("models.llama: attention_mask must have input_ids' shape " + shape_string(ids.sizes()));
    if (positions.defined() && !positions.sizes().equals(ids.sizes()))
      throw RecipeError("models.llama: position_ids must have input_ids' shape " + shape_string(ids.sizes()));
    // A mask of all ones hides nothing: drop it so the fused causal kernel runs. Both checks
    // read the batch: the Trainer answers them from the host copy (host_facts.h), so a step
    // on the GPU does not wait for it.
    if (mask.defined() && hides_nothing(mask)) mask = at::Tensor();
    at::Tensor packed;  // packed sequences: where positions do not continue, a new sequence starts
    PackedSequences sequences;  // the same, for the varlen kernel
    if (positions.defined() && !mask.defined()) {
      const std::optional<bool> known = known_positions_restart(positions);
      if (known ? *known : positions_restart(positions)) {
        // The varlen kernel needs the sequences' offsets and longest length on the host: from
        // the Trainer's host copy (host_facts.h), never read back from the device.
        const PackedSequences* host = known_packed_sequences(positions);
        if (host && host->cu_seqlens.numel() - 1 <= kMaxVarlenSequences && varlen_attention(ids.device()))
          sequences = {host->cu_seqlens.to(ids.device(), at::kInt, /*non_blocking=*/true), host->max_len};
        else
          packed = sequence_starts(positions).cumsum(-1);  // (B, T) sequence index
      }
    }
    if (!positions.defined()) positions = at::arange(ids.size(1), ids.options()).unsqueeze(0).expand_as(ids);
    // The varlen kernel needs no mask: none is built ((T, T) bools, more with a window).
    const AttentionMasks visible = sequences.cu_seqlens.defined()
                                       ? AttentionMasks{{}, {}, false, sequences, attention_dtype(ids.device()), config_.sliding_window}
                                       : masks(ids.size(1), 0, mask, packed, ids.device());
    const at::Tensor x = hidden_states(ids, positions, visible, nullptr);  // (B, T, C)
    at::Tensor labels = optional_field(batch, "labels");
    if (classifier()) return classify(x, ids, labels);
    if (labels.defined() && fused_linear_cross_entropy() && loss_only())
      return {{"loss", fused_shifted_lm_loss(x, lm_head_, labels, kName)}};  // no (B, T, V) logits
    at::Tensor logits = at::linear(x, lm_head_);  // (B, T, V)
    TensorMap out{{"logits", logits}};
    if (labels.defined()) out["loss"] = shifted_lm_loss(logits, labels, kName);
    return out;
  }

  at::Tensor forward_cached(const at::Tensor& ids, const at::Tensor& attention_mask, KVCache& cache, int64_t logits_to_keep) override {
    if (classifier()) throw RecipeError("generation: " + type_name() + " is a classifier; it does not generate");
    const int64_t past = cache.length(), t = ids.size(1);
    at::Tensor mask = attention_mask;
    if (mask.defined() && mask.size(1) != past + t)
      throw RecipeError("generation: attention_mask covers " + std::to_string(mask.size(1)) + " positions, cache and input " +
                        std::to_string(past + t));
    at::Tensor positions;
    if (mask.defined()) {
      // Left padding: a row's positions count its real tokens only (as HF generate does).
      positions = (mask.to(at::kLong).cumsum(-1) - 1).clamp_min(0).narrow(1, past, t);
      if (hides_nothing(mask)) mask = at::Tensor();
    } else {
      positions = at::arange(past, past + t, ids.options().dtype(at::kLong)).unsqueeze(0).expand({ids.size(0), t});
    }
    if (cache.keys.empty()) cache.keys.resize(layers_.size()), cache.values.resize(layers_.size());
    return at::linear(hidden_states(ids, positions, masks(t, past, mask, at::Tensor(), ids.device()), &cache, logits_to_keep), lm_head_);
  }

  // HF: 6 · (parameters outside embedding layers) · tokens, forward and backward together.
  double floating_point_ops(const TensorMap& batch) const override {
    auto it = batch.find("input_ids");
    if (it == batch.end() || !it->second.defined()) return 0.0;
    const int64_t non_embedding = num_parameters() - embed_->weight.numel();
    return 6.0 * static_cast<double>(non_embedding) * static_cast<double>(it->second.numel());
  }

 private:
  bool classifier() const { return config_.num_labels > 0; }

  // HF's GenericForSequenceClassification (classifier_labels.h).
  TensorMap classify(const at::Tensor& x, const at::Tensor& ids, const at::Tensor& labels) {
    const at::Tensor pooled = last_token_rows(x, ids, config_.pad_token_id, "models.llama");  // (B, C)
    TensorMap out{{"logits", score_->forward(pooled)}};  // (B, num_labels)
    if (labels.defined())
      out["loss"] = pooled_classification_loss({config_.num_labels, config_.labels, config_.problem_type}, out["logits"], labels, "models.llama");
    return out;
  }

  static bool hides_nothing(const at::Tensor& mask) {
    const std::optional<bool> known = known_mask_hides_nothing(mask);
    return known ? *known : mask_hides_nothing(mask);
  }

  // The dtype attention computes in: autocast's, else the weights'. (The varlen kernel casts
  // to it as HF's flash_attention_2 casts to its target dtype.)
  at::ScalarType attention_dtype(const at::Device& device) const {
    return at::autocast::is_autocast_enabled(device.type()) ? at::autocast::get_autocast_dtype(device.type()) : embed_->weight.scalar_type();
  }

  // The varlen kernel's grid has one row per sequence (CUDA's 65535 limit).
  static constexpr int64_t kMaxVarlenSequences = 65535;

  // Whether packed rows take the varlen kernel: a GPU that has it, no attention dropout in
  // play, a sliding window only where the kernel takes one.
  bool varlen_attention(const at::Device& device) const {
    if (config_.attention_dropout > 0 && dropout_active()) return false;
    if (config_.sliding_window > 0 && !kernels::packed_attention_takes_window()) return false;
    return kernels::flash_attention_available(device, attention_dtype(device), config_.head_dim);
  }

  static LlamaConfig validated(LlamaConfig c) {
    complete_llama_config(c, "models.llama");
    return c;
  }

  // The keys hidden from T queries following `past` cached positions.
  AttentionMasks masks(int64_t t, int64_t past, const at::Tensor& padding, const at::Tensor& packed, at::Device device) const {
    AttentionMasks m;
    const int64_t total = past + t, window = config_.sliding_window;
    const bool windowed = window > 0 && total > window;
    if (!padding.defined() && !packed.defined() && !windowed) {
      m.causal = past == 0;  // with a cache, T == 1 queries see every key; T > 1 needs the offset mask
      if (m.causal || t == 1) return m;
    }
    const at::Tensor q_pos = at::arange(past, total, at::TensorOptions().dtype(at::kLong).device(device)).unsqueeze(1);  // (T, 1)
    const at::Tensor k_pos = at::arange(total, at::TensorOptions().dtype(at::kLong).device(device)).unsqueeze(0);       // (1, T_k)
    at::Tensor hide = k_pos.gt(q_pos).view({1, 1, t, total});
    if (padding.defined()) hide = hide.logical_or(padding.eq(0).view({padding.size(0), 1, 1, total}));
    if (packed.defined()) hide = hide.logical_or(packed.unsqueeze(2).ne(packed.unsqueeze(1)).unsqueeze(1));
    m.full = hide;
    if (window > 0) m.window = hide.logical_or(k_pos.le(q_pos - window).view({1, 1, t, total}));
    return m;
  }

  // The final-norm hidden states (B, T or logits_to_keep, C) the output projection reads.
  at::Tensor hidden_states(const at::Tensor& ids, const at::Tensor& positions, const AttentionMasks& masks, KVCache* cache,
                           int64_t logits_to_keep = 0) {
    at::Tensor x = embed_->forward(ids);  // (B, T, C)
    auto [cos, sin] = rope_cos_sin(inv_freq_, positions, x.scalar_type());
    std::pair<at::Tensor, at::Tensor> local;  // Gemma's sliding layers' rotation
    if (local_inv_freq_.defined()) local = rope_cos_sin(local_inv_freq_, positions, x.scalar_type());
    for (size_t i = 0; i < layers_.size(); ++i) {
      const bool own = local_inv_freq_.defined() && layers_[i]->sliding();
      x = layers_[i]->forward_layer(x, own ? local.first : cos, own ? local.second : sin, masks, cache ? &cache->keys[i] : nullptr,
                                    cache ? &cache->values[i] : nullptr);
    }
    if (logits_to_keep > 0 && logits_to_keep < x.size(1)) x = x.narrow(1, x.size(1) - logits_to_keep, logits_to_keep);
    return norm_->forward(x);
  }

  LlamaConfig config_;
  std::shared_ptr<Embedding> embed_;
  std::vector<std::shared_ptr<LlamaDecoderLayer>> layers_;
  std::shared_ptr<RMSNorm> norm_;
  at::Tensor lm_head_, inv_freq_, local_inv_freq_;
  std::shared_ptr<Linear> score_;
};

}  // namespace

ModulePtr make_llama(const LlamaConfig& config) { return std::make_shared<Llama>(config); }

}  // namespace runner::models
