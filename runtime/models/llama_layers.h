// The Llama family's decoder layer (llama.cpp's blocks): RMSNorm, rotary attention with
// grouped key/value heads, SwiGLU MLP, with Hugging Face LlamaDecoderLayer's names
// (self_attn.{q,k,v,o}_proj, mlp.{gate,up,down}_proj, input_layernorm, post_attention_layernorm).
#pragma once
#include <memory>
#include <string>

#include "runtime/models/host_facts.h"
#include "runtime/models/builtin.h"
#include "runtime/models/llama_config.h"
#include "runtime/models/module.h"

namespace runner::models {

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

class LlamaAttention;
class LlamaMLP;
class RMSNorm;

class LlamaDecoderLayer : public Module {
 public:
  LlamaDecoderLayer(const LlamaConfig& c, const std::string& prefix, bool sliding);

  // Inside hooked(): a sharding engine gathers this layer's parameters around it, and with
  // gradient checkpointing backward recomputes body from its inputs.
  bool sliding() const { return sliding_; }  // attends within the sliding window (and, in Gemma 3, rotates by local_rope)
  at::Tensor forward_layer(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin, const AttentionMasks& masks,
                           at::Tensor* past_k, at::Tensor* past_v);

 private:
  bool sliding_;
  std::shared_ptr<RMSNorm> input_norm_, post_norm_;
  std::shared_ptr<RMSNorm> pre_ff_norm_, post_ff_norm_;  // Gemma 3 only
  std::shared_ptr<LlamaAttention> attn_;
  std::shared_ptr<LlamaMLP> mlp_;
};

}  // namespace runner::models
