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
//
// Blocks are pre-norm: x += attn(rms(x)); x += down(silu(gate(rms(x))) · up(rms(x))).
// Attention: rotary embeddings on q and k, each group of H/Hkv query heads shares one key/value
// head (grouped-query attention), causal, optionally a sliding window.
#include <ATen/autocast_mode.h>
#include <c10/core/GradMode.h>

#include "runtime/core/errors.h"
#include "runtime/kernels/packed_attention.h"
#include "runtime/kernels/rms_norm_linear.h"
#include "runtime/kernels/swiglu.h"
#include "runtime/kernels/swiglu_linear.h"
#include "runtime/models/attention.h"
#include "runtime/models/batch_inputs.h"
#include "runtime/models/builtin.h"
#include "runtime/models/parameter_store.h"
#include "runtime/models/host_facts.h"
#include "runtime/models/kv_cache.h"
#include "runtime/models/layers.h"
#include "runtime/models/llama_config.h"
#include "runtime/models/fusable_linear.h"
#include "runtime/models/loss_only.h"
#include "runtime/models/losses.h"
#include "runtime/models/rope.h"

namespace runner::models {

namespace {

// The keys each query may not see, shared by every layer of one forward: `full` for
// full-attention layers, `window` for sliding-window layers. Undefined with `causal` set
// means plain causal attention (ATen's fused kernels handle it without a mask). Packed rows
// on a GPU take `packed` instead of a mask: causal within each sequence, through the varlen
// kernel (packed_attention.h), in `dtype`; sliding-window layers with the kernel's window of
// `sliding_window` keys.
struct AttentionMasks {
  at::Tensor full, window;
  bool causal = false;
  PackedSequences packed;
  at::ScalarType dtype = at::kBFloat16;
  int64_t sliding_window = 0;
};

// What one layer's attention takes from AttentionMasks.
struct LayerMask {
  at::Tensor hide;  // or undefined
  bool causal = false;
  PackedSequences packed;  // cu_seqlens defined: the varlen kernel, no mask
  at::ScalarType dtype = at::kBFloat16;
  int64_t window = 0;  // with packed: each query sees this many keys at most (itself included); 0: all before it
};

std::shared_ptr<Linear> projection(int64_t in, int64_t out, bool bias, double std) {
  auto l = std::make_shared<Linear>(in, out, bias);
  if (meta_init_active()) return l;  // placeholders: the files give the values
  c10::NoGradGuard no_grad;
  l->weight.normal_(0.0, std);  // HF _init_weights: normal(0, initializer_range), zero bias
  if (bias) l->bias.zero_();
  return l;
}

// An RMSNorm's output with what recomputes it: its input, weight and eps (undefined x where
// the norm ran with hooks or checkpointing of its own).
struct Normed {
  explicit Normed(at::Tensor o) : out(std::move(o)) {}
  at::Tensor out, x, weight;
  double eps = 0.0;
};

Normed normed(RMSNorm& norm, const at::Tensor& x) {
  Normed n(norm.forward(x));
  if (!norm.has_forward_hooks() && !norm.checkpointing() && !norm.has_adapter()) n.x = x, n.weight = norm.weight, n.eps = norm.eps;
  return n;
}

// The projections of one norm's output (q, k, v of input_layernorm's; gate, up of
// post_attention_layernorm's). The LoRA branches' A of those that have one are one node on the
// concatenated A (kernels/rms_norm_linear.h): it keeps the norm's input, not its output (the
// frozen bases keep nothing of it), and reads and recomputes the output once for all of them.
std::vector<at::Tensor> project(const std::vector<Linear*>& layers, const Normed& in) {
  std::vector<at::Tensor> out(layers.size());
  std::vector<size_t> branched;
  std::vector<kernels::LinearWeights> weights;
  if (in.x.defined())
    for (size_t i = 0; i < layers.size(); ++i)
      if (auto w = fusable_linear(*layers[i]); w && w->lora_a.defined()) branched.push_back(i), weights.push_back(*w);
  // One A decides for all (one model: one dtype and device), before the concatenation is made.
  if (!weights.empty() && kernels::rms_norm_linear_is_one_node(in.out, in.x, in.weight, weights[0].lora_a)) {
    std::vector<at::Tensor> as;
    for (const auto& w : weights) as.push_back(w.lora_a);
    const at::Tensor down = kernels::rms_norm_linear(in.out, in.x, in.weight, in.eps, as.size() > 1 ? at::cat(as) : as[0]);  // (..., Σ r)
    for (size_t k = 0, offset = 0; k < branched.size(); ++k) {
      const int64_t r = weights[k].lora_a.size(0);
      const at::Tensor base = at::linear(in.out, weights[k].weight, weights[k].bias);  // as Linear's forward
      auto sum = add_lora_branch(base, down.narrow(-1, static_cast<int64_t>(offset), r), weights[k]);
      if (!sum) {  // the adapter would cast: every layer's own forward
        out.assign(layers.size(), at::Tensor());
        break;
      }
      out[branched[k]] = *sum;
      offset += static_cast<size_t>(r);
    }
  }
  for (size_t i = 0; i < layers.size(); ++i)
    if (!out[i].defined()) out[i] = layers[i]->forward(in.out);
  return out;
}

class LlamaAttention : public Module {
 public:
  LlamaAttention(const LlamaConfig& c, const std::string& prefix)
      : Module(prefix + "Attention"), heads_(c.num_attention_heads), kv_heads_(c.num_key_value_heads), head_dim_(c.head_dim),
        dropout_(c.attention_dropout) {
    const double std = c.initializer_range;
    q_ = projection(c.hidden_size, heads_ * head_dim_, c.qkv_bias, std);
    k_ = projection(c.hidden_size, kv_heads_ * head_dim_, c.qkv_bias, std);
    v_ = projection(c.hidden_size, kv_heads_ * head_dim_, c.qkv_bias, std);
    o_ = projection(heads_ * head_dim_, c.hidden_size, c.o_bias, std);
    register_module("q_proj", q_);
    register_module("k_proj", k_);
    register_module("v_proj", v_);
    register_module("o_proj", o_);
  }

  // x (B, T, C), cos/sin (B, T, D); `m.hide` (broadcastable to (B, H, T, T_past + T)) or
  // undefined with `m.causal`, or packed sequences. With a cache, this layer's keys/values
  // are appended to (*past_k, *past_v). Inside this module's forward hooks: a sharding
  // engine's size policy can make self_attn a unit of its own (its projections' parameters
  // gathered around it).
  at::Tensor attend_to(const Normed& x, const at::Tensor& cos, const at::Tensor& sin, const LayerMask& m, at::Tensor* past_k,
                       at::Tensor* past_v) {
    return hooked([&] { return attend_body(x, cos, sin, m, past_k, past_v); });
  }

 private:
  at::Tensor attend_body(const Normed& x, const at::Tensor& cos, const at::Tensor& sin, const LayerMask& m, at::Tensor* past_k,
                         at::Tensor* past_v) {
    const int64_t b = x.out.size(0), t = x.out.size(1);
    const std::vector<at::Tensor> qkv = project({q_.get(), k_.get(), v_.get()}, x);
    at::Tensor q = qkv[0].view({b, t, heads_, head_dim_}).transpose(1, 2);  // (B, H, T, D)
    at::Tensor k = qkv[1].view({b, t, kv_heads_, head_dim_}).transpose(1, 2);
    at::Tensor v = qkv[2].view({b, t, kv_heads_, head_dim_}).transpose(1, 2);
    q = apply_rope(q, cos, sin);
    k = apply_rope(k, cos, sin);
    if (m.packed.cu_seqlens.defined()) {
      // The B·T tokens as one batch of sequences (B·T, heads, D): rope's output keeps the
      // projection's (B, T, H, D) memory, so these are views; the shared key/value heads go
      // in as they are.
      auto tokens = [b, t, this](const at::Tensor& x4, int64_t heads) { return x4.transpose(1, 2).reshape({b * t, heads, head_dim_}); };
      const at::Tensor y = kernels::packed_attention(tokens(q, heads_), tokens(k, kv_heads_), tokens(v, kv_heads_), m.packed.cu_seqlens,
                                                        m.packed.max_len, m.dtype, m.window);
      return o_->forward(y.reshape({b, t, heads_ * head_dim_}));
    }
    if (past_k) {
      if (past_k->defined()) {
        k = at::cat({*past_k, k}, 2);
        v = at::cat({*past_v, v}, 2);
      }
      *past_k = k;
      *past_v = v;
    }
    // Without a mask on a GPU whose flash kernel takes the attention, SDPA (flash, or cuDNN
    // where ATen prefers it) takes the shared key/value heads as they are, as transformers
    // does there; elsewhere they are repeated: the kernels SDPA would fall back to
    // (memory-efficient, the CPU's) do not take them, and math would hold T² scores.
    const bool grouped = heads_ != kv_heads_ && !m.hide.defined() && sdpa_takes_grouped_heads() &&
                         kernels::flash_attention_available(q.device(), attention_compute_dtype(q), head_dim_);
    const at::Tensor y = grouped ? attend(q, k, v, m.hide, m.causal, dropout_, dropout_active(), /*grouped=*/true)
                                 : attend(q, repeat_kv(k), repeat_kv(v), m.hide, m.causal, dropout_, dropout_active());  // (B, H, T, D)
    return o_->forward(y.transpose(1, 2).reshape({b, t, heads_ * head_dim_}));
  }

  // (B, Hkv, T, D) -> (B, H, T, D): key/value head j serves query heads j·n .. j·n + n - 1.
  at::Tensor repeat_kv(const at::Tensor& x) const {
    const int64_t n = heads_ / kv_heads_;
    if (n == 1) return x;
    const int64_t b = x.size(0), t = x.size(2);
    return x.unsqueeze(2).expand({b, kv_heads_, n, t, head_dim_}).reshape({b, heads_, t, head_dim_});
  }

  int64_t heads_, kv_heads_, head_dim_;
  double dropout_;
  std::shared_ptr<Linear> q_, k_, v_, o_;
};

class LlamaMLP : public Module {
 public:
  LlamaMLP(const LlamaConfig& c, const std::string& prefix) : Module(prefix + "MLP") {
    gate_ = projection(c.hidden_size, c.intermediate_size, c.mlp_bias, c.initializer_range);
    up_ = projection(c.hidden_size, c.intermediate_size, c.mlp_bias, c.initializer_range);
    down_ = projection(c.intermediate_size, c.hidden_size, c.mlp_bias, c.initializer_range);
    register_module("gate_proj", gate_);
    register_module("up_proj", up_);
    register_module("down_proj", down_);
  }
  at::Tensor forward_impl(const at::Tensor& x) override { return body(Normed(x)); }
  // From the block: the post-attention norm's output with what recomputes it (project()).
  at::Tensor forward_normed(const Normed& x) {
    if (has_forward_hooks() || checkpointing() || has_adapter()) return forward(x.out);
    return body(x);
  }

 private:
  // down_proj with the SwiGLU before it as one node where it can (kernels/swiglu_linear.h): the
  // product is then not kept for backward.
  at::Tensor body(const Normed& x) {
    const std::vector<at::Tensor> gate_up = project({gate_.get(), up_.get()}, x);
    const at::Tensor &gate = gate_up[0], &up = gate_up[1];
    if (const auto w = fusable_linear(*down_); w && kernels::swiglu_linear_is_one_node(gate, up, *w)) return kernels::swiglu_linear(gate, up, *w);
    return down_->forward(kernels::swiglu(gate, up));
  }

  std::shared_ptr<Linear> gate_, up_, down_;
};

class DecoderLayer : public Module {
 public:
  DecoderLayer(const LlamaConfig& c, const std::string& prefix, bool sliding) : Module(prefix + "DecoderLayer"), sliding_(sliding) {
    input_norm_ = std::make_shared<RMSNorm>(c.hidden_size, c.rms_norm_eps);
    attn_ = std::make_shared<LlamaAttention>(c, prefix);
    post_norm_ = std::make_shared<RMSNorm>(c.hidden_size, c.rms_norm_eps);
    mlp_ = std::make_shared<LlamaMLP>(c, prefix);
    register_module("self_attn", attn_);
    register_module("mlp", mlp_);
    register_module("input_layernorm", input_norm_);
    register_module("post_attention_layernorm", post_norm_);
  }

  // Inside hooked(): a sharding engine gathers this layer's parameters around it, and with
  // gradient checkpointing backward recomputes body from its inputs.
  at::Tensor forward_layer(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin, const AttentionMasks& masks,
                           at::Tensor* past_k, at::Tensor* past_v) {
    const at::Tensor& hide = sliding_ ? masks.window : masks.full;
    const bool varlen = masks.packed.cu_seqlens.defined();
    // The checkpoint function takes defined tensors only: the mask (or the packed sequences'
    // offsets) joins the inputs when there is one.
    std::vector<at::Tensor> inputs{x, cos, sin};
    if (varlen) inputs.push_back(masks.packed.cu_seqlens);
    else if (hide.defined()) inputs.push_back(hide);
    LayerMask m{at::Tensor(), masks.causal, {at::Tensor(), masks.packed.max_len}, masks.dtype, sliding_ ? masks.sliding_window : 0};
    return hooked([&] {
      // By value: backward's recompute runs after this function has returned.
      return maybe_checkpointed(inputs, [this, m, varlen, past_k, past_v](const std::vector<at::Tensor>& in) {
        LayerMask layer = m;
        if (in.size() > 3) (varlen ? layer.packed.cu_seqlens : layer.hide) = in[3];
        at::Tensor h = in[0] + attn_->attend_to(normed(*input_norm_, in[0]), in[1], in[2], layer, past_k, past_v);
        return h + mlp_->forward_normed(normed(*post_norm_, h));
      });
    });
  }

 private:
  bool sliding_;
  std::shared_ptr<RMSNorm> input_norm_, post_norm_;
  std::shared_ptr<LlamaAttention> attn_;
  std::shared_ptr<LlamaMLP> mlp_;
};

// HF's class-name prefix per model_type (LlamaDecoderLayer, Qwen2DecoderLayer, ...): the
// type names no_split_modules and fsdp_transformer_layer_cls_to_wrap refer to.
std::string class_prefix(const std::string& model_type) {
  if (model_type == "qwen2") return "Qwen2";
  if (model_type == "mistral") return "Mistral";
  return "Llama";
}

class Llama : public Module {
 public:
  explicit Llama(LlamaConfig c) : Module(class_prefix(c.model_type) + "ForCausalLM"), config_(validated(std::move(c))) {
    const LlamaConfig& k = config_;
    const std::string prefix = class_prefix(k.model_type);
    auto body = std::make_shared<Module>(prefix + "Model");
    embed_ = std::make_shared<Embedding>(k.vocab_size, k.hidden_size);
    if (!meta_init_active()) {
      c10::NoGradGuard no_grad;
      embed_->weight.normal_(0.0, k.initializer_range);
    }
    body->register_module("embed_tokens", embed_);
    auto layers = std::make_shared<ModuleList>();
    for (int64_t i = 0; i < k.num_hidden_layers; ++i) {
      const bool sliding = k.sliding_window > 0 && (k.sliding_layers.empty() || k.sliding_layers[static_cast<size_t>(i)]);
      layers_.push_back(std::make_shared<DecoderLayer>(k, prefix, sliding));
      layers->append(layers_.back());
    }
    body->register_module("layers", layers);
    norm_ = std::make_shared<RMSNorm>(k.hidden_size, k.rms_norm_eps);
    body->register_module("norm", norm_);
    // HF's model.rotary_emb.inv_freq: a non-persistent fp32 buffer, so it moves with the
    // model instead of being copied to the device at every forward.
    auto rotary = std::make_shared<Module>(prefix + "RotaryEmbedding");
    inv_freq_ = rotary->register_buffer("inv_freq", rope_inv_freq(k.rope, k.head_dim), /*persistent=*/false);
    body->register_module("rotary_emb", rotary);
    register_module("model", body);
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
  bool shifts_labels() const override { return true; }
  bool can_generate() const override { return true; }
  std::vector<std::string> input_names() const override { return {"input_ids", "attention_mask", "position_ids", "labels"}; }
  Module* input_embeddings() override { return embed_.get(); }
  std::vector<IdRange> id_ranges() const override {
    const std::string vocab = "vocab_size = " + std::to_string(config_.vocab_size);
    return {{"input_ids", config_.vocab_size, false, vocab}, {"labels", config_.vocab_size, true, vocab}};
  }
  std::vector<std::string> no_split_modules() const override { return {class_prefix(config_.model_type) + "DecoderLayer"}; }
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
    if (labels.defined() && fused_linear_cross_entropy() && loss_only())
      return {{"loss", fused_shifted_lm_loss(x, lm_head_, labels, kName)}};  // no (B, T, V) logits
    at::Tensor logits = at::linear(x, lm_head_);  // (B, T, V)
    TensorMap out{{"logits", logits}};
    if (labels.defined()) out["loss"] = shifted_lm_loss(logits, labels, kName);
    return out;
  }

  at::Tensor forward_cached(const at::Tensor& ids, const at::Tensor& attention_mask, KVCache& cache, int64_t logits_to_keep) override {
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
    for (size_t i = 0; i < layers_.size(); ++i)
      x = layers_[i]->forward_layer(x, cos, sin, masks, cache ? &cache->keys[i] : nullptr, cache ? &cache->values[i] : nullptr);
    if (logits_to_keep > 0 && logits_to_keep < x.size(1)) x = x.narrow(1, x.size(1) - logits_to_keep, logits_to_keep);
    return norm_->forward(x);
  }

  LlamaConfig config_;
  std::shared_ptr<Embedding> embed_;
  std::vector<std::shared_ptr<DecoderLayer>> layers_;
  std::shared_ptr<RMSNorm> norm_;
  at::Tensor lm_head_, inv_freq_;
};

}  // namespace

ModulePtr make_llama(const LlamaConfig& config) { return std::make_shared<Llama>(config); }

}  // namespace runner::models
