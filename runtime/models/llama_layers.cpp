// The Llama family's decoder layer (llama_layers.h): attention, MLP and the pre-norm block.
#include "runtime/models/llama_layers.h"

#include <cmath>

#include <ATen/autocast_mode.h>
#include <c10/core/GradMode.h>

#include "runtime/kernels/packed_attention.h"
#include "runtime/kernels/rms_norm_linear.h"
#include "runtime/kernels/swiglu.h"
#include "runtime/kernels/swiglu_linear.h"
#include "runtime/models/attention.h"
#include "runtime/models/fusable_linear.h"
#include "runtime/models/layers.h"
#include "runtime/models/parameter_store.h"
#include "runtime/models/rope.h"

namespace runner::models {

namespace {

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
  // (Gemma's unit-offset norm has no fused recompute: its branches read its output.)
  if (!norm.has_forward_hooks() && !norm.checkpointing() && !norm.has_adapter() && !norm.unit_offset) n.x = x, n.weight = norm.weight, n.eps = norm.eps;
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

}  // namespace

class LlamaAttention : public Module {
 public:
  LlamaAttention(const LlamaConfig& c, const std::string& prefix)
      : Module(prefix + "Attention"), heads_(c.num_attention_heads), kv_heads_(c.num_key_value_heads), head_dim_(c.head_dim),
        dropout_(c.attention_dropout) {
    // Gemma's scores are q·k / √query_pre_attn_scalar: q is scaled so that the kernels' 1/√D gives that.
    if (c.query_pre_attn_scalar > 0 && c.query_pre_attn_scalar != head_dim_)
      query_scale_ = std::sqrt(static_cast<double>(head_dim_) / static_cast<double>(c.query_pre_attn_scalar));
    const double std = c.initializer_range;
    q_ = projection(c.hidden_size, heads_ * head_dim_, c.qkv_bias, std);
    k_ = projection(c.hidden_size, kv_heads_ * head_dim_, c.qkv_bias, std);
    v_ = projection(c.hidden_size, kv_heads_ * head_dim_, c.qkv_bias, std);
    o_ = projection(heads_ * head_dim_, c.hidden_size, c.o_bias, std);
    register_module("q_proj", q_);
    register_module("k_proj", k_);
    register_module("v_proj", v_);
    register_module("o_proj", o_);
    if (c.qk_norm) {  // Qwen 3, Gemma 3: each head's query and key RMS-normalised before the rotation
      q_norm_ = std::make_shared<RMSNorm>(head_dim_, c.rms_norm_eps, c.gemma);
      k_norm_ = std::make_shared<RMSNorm>(head_dim_, c.rms_norm_eps, c.gemma);
      register_module("q_norm", q_norm_);
      register_module("k_norm", k_norm_);
    }
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
    at::Tensor q = qkv[0].view({b, t, heads_, head_dim_});  // (B, T, H, D)
    at::Tensor k = qkv[1].view({b, t, kv_heads_, head_dim_});
    if (q_norm_) q = q_norm_->forward(q), k = k_norm_->forward(k);
    q = q.transpose(1, 2);  // (B, H, T, D)
    k = k.transpose(1, 2);
    at::Tensor v = qkv[2].view({b, t, kv_heads_, head_dim_}).transpose(1, 2);
    q = apply_rope(q, cos, sin);
    k = apply_rope(k, cos, sin);
    if (query_scale_ != 1.0) q = q * query_scale_;
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
  double dropout_, query_scale_ = 1.0;
  std::shared_ptr<Linear> q_, k_, v_, o_;
  std::shared_ptr<RMSNorm> q_norm_, k_norm_;  // with qk_norm
};

class LlamaMLP : public Module {
 public:
  LlamaMLP(const LlamaConfig& c, const std::string& prefix) : Module(prefix + "MLP"), gelu_(c.gemma) {
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
    if (gelu_) return down_->forward(at::gelu(gate, "tanh") * up);  // Gemma's gelu_pytorch_tanh gating
    if (const auto w = fusable_linear(*down_); w && kernels::swiglu_linear_is_one_node(gate, up, *w)) return kernels::swiglu_linear(gate, up, *w);
    return down_->forward(kernels::swiglu(gate, up));
  }

  std::shared_ptr<Linear> gate_, up_, down_;
  bool gelu_;
};


LlamaDecoderLayer::LlamaDecoderLayer(const LlamaConfig& c, const std::string& prefix, bool sliding)
    : Module(prefix + "DecoderLayer"), sliding_(sliding) {
  input_norm_ = std::make_shared<RMSNorm>(c.hidden_size, c.rms_norm_eps, c.gemma);
  attn_ = std::make_shared<LlamaAttention>(c, prefix);
  post_norm_ = std::make_shared<RMSNorm>(c.hidden_size, c.rms_norm_eps, c.gemma);
  mlp_ = std::make_shared<LlamaMLP>(c, prefix);
  register_module("self_attn", attn_);
  register_module("mlp", mlp_);
  register_module("input_layernorm", input_norm_);
  register_module("post_attention_layernorm", post_norm_);
  if (c.gemma) {  // Gemma 3: post_attention_layernorm normalises attention's output; two more around the MLP
    pre_ff_norm_ = std::make_shared<RMSNorm>(c.hidden_size, c.rms_norm_eps, true);
    post_ff_norm_ = std::make_shared<RMSNorm>(c.hidden_size, c.rms_norm_eps, true);
    register_module("pre_feedforward_layernorm", pre_ff_norm_);
    register_module("post_feedforward_layernorm", post_ff_norm_);
  }
}

at::Tensor LlamaDecoderLayer::forward_layer(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin, const AttentionMasks& masks,
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
      const at::Tensor attended = attn_->attend_to(normed(*input_norm_, in[0]), in[1], in[2], layer, past_k, past_v);
      if (pre_ff_norm_) {  // Gemma 3's sandwich: x += norm(attn(norm(x))); x += norm(mlp(norm(x)))
        const at::Tensor h = in[0] + post_norm_->forward(attended);
        return h + post_ff_norm_->forward(mlp_->forward_normed(normed(*pre_ff_norm_, h)));
      }
      const at::Tensor h = in[0] + attended;
      return h + mlp_->forward_normed(normed(*post_norm_, h));
    });
  });
}

}  // namespace runner::models
