// The built-in models: batch (field → tensor) in, {"logits", "loss" when "labels" is given}
// out. Each model's state-dict names are fixed (documented at its factory) so weights
// interchange with the equivalent PyTorch / Hugging Face module.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/models/module.h"
#include "runtime/models/rope.h"

namespace runner::models {

// Refuses a configuration too large to be meant: a typo such as n_layer = 4e18 would
// otherwise spend hours building layers before running out of memory (found by fuzzing).
// Limits: 10^5 layers, 10^12 parameters (4 TB in fp32).
void check_model_scale(const std::string& model, int64_t n_layer, double parameters);

// Single-input models (MLP, linear, CNN) read the field `input`; empty = "pixel_values" if
// the batch has it, else "x", else the first field (in key order) that is not "labels".
// Their input_names() is {input, "labels"}, or {} (keep every field) when `input` is empty.

// Multi-layer perceptron: Linear → activation → dropout → … → Linear. The input is
// flattened beyond dim 0 (a (B) input is read as (B, 1)). State dict: the Linears of a
// ModuleList, "layers.{i}.weight" (sizes[i+1], sizes[i]) and "layers.{i}.bias", i.e.
// PyTorch's `self.layers = nn.ModuleList([nn.Linear(a, b), ...])`; activation and dropout
// hold no state, so the names do not depend on them.
struct MLPOptions {
  std::vector<int64_t> sizes;       // {in, hidden..., out}: at least two
  std::string activation = "relu";  // relu | gelu | gelu_tanh | tanh | sigmoid | silu
  double dropout = 0;
  std::string loss = "cross_entropy";  // cross_entropy (integer labels, -100 ignored) | mse
  std::string input;
};
ModulePtr make_mlp(const MLPOptions& options);

// Linear regression y = x·Wᵀ + b with MSE loss. State dict: "linear.weight" (out, in),
// "linear.bias" (out).
struct LinearModelOptions {
  int64_t in_features = 1, out_features = 1;
  std::string input;
};
ModulePtr make_linear_model(const LinearModelOptions& options);

// Small image classifier (PyTorch's MNIST example): per entry of `channels` an unpadded
// Conv2d 3×3 → ReLU, then one MaxPool 2×2, dropout, flatten, Linear(hidden) → ReLU →
// dropout → Linear(num_classes), cross-entropy loss. The defaults reach ~0.916 test
// accuracy on Fashion-MNIST in 3 epochs (AdamW lr 1e-3, batch 64, standardised pixels).
// Input (B, C, S, S), (B, S, S) when in_channels = 1, or flattened (B, C·S·S); integer pixels
// are converted to float unscaled (normalise in the data pipeline). State dict:
// "convs.{i}.weight|bias", "fc1.weight|bias", "fc2.weight|bias".
struct CNNOptions {
  int64_t in_channels = 1;
  std::vector<int64_t> channels = {32, 64};
  int64_t hidden = 128;
  int64_t num_classes = 10;
  double dropout = 0.25;
  int64_t image_size = 28;
  std::string input;
};
ModulePtr make_cnn(const CNNOptions& options);

// GPT-2 decoder with Hugging Face GPT2LMHeadModel's names and layouts (see gpt.cpp).
// Reads input_ids (B, T) and labels (B, T); attention_mask is not read (see gpt.cpp).
struct GPTConfig {
  int64_t vocab_size = 50257, block_size = 1024, n_layer = 12, n_head = 12, n_embd = 768;
  // HF's resid_pdrop; attn_pdrop and embd_pdrop are the same unless given (GPT-2's configs
  // set all three alike, but a config.json may not).
  double dropout = 0.0;
  std::optional<double> attn_dropout, embd_dropout;
  double attention_dropout() const { return attn_dropout.value_or(dropout); }
  double embedding_dropout() const { return embd_dropout.value_or(dropout); }
  bool bias = true;      // false: Linear and LayerNorm without biases (names then lack them)
  double layer_norm_epsilon = 1e-5;
  // config.json's ids, kept from the folder the model was read from (empty: not written, so
  // transformers takes GPT2Config's defaults, as for a model runner made).
  std::vector<int64_t> bos_token_id, eos_token_id, pad_token_id;
  // > 0: HF's GPT2ForSequenceClassification, as LlamaConfig's num_labels (a `score` head on the
  // last token that is not pad_token_id, no lm_head); right padding only, as for the LM.
  int64_t num_labels = 0;
  std::vector<std::string> labels;  // id2label's names
  std::string problem_type;
};
ModulePtr make_gpt(const GPTConfig& config);

// Llama-family decoder (Llama 2/3, Qwen 2/2.5/3, Mistral, Gemma 3, SmolLM, TinyLlama) with Hugging Face
// LlamaForCausalLM's names (see llama.cpp): RMSNorm, rotary embeddings, SwiGLU MLP,
// grouped-query attention. Reads input_ids (B, T), and optionally attention_mask (B, T) (0 =
// padding, e.g. left-padded prompts), position_ids (B, T) (packed sequences: where the
// positions restart, attention stops at the boundary, as in HF) and labels (B, T).
struct LlamaConfig {
  std::string model_type = "llama";  // llama | qwen2 | qwen3 | mistral | gemma3_text: config.json's model_type and the layer type names
  int64_t vocab_size = 32000, hidden_size = 4096, intermediate_size = 11008, num_hidden_layers = 32,
          num_attention_heads = 32;
  int64_t num_key_value_heads = 0;  // 0: num_attention_heads (no grouping)
  int64_t head_dim = 0;             // 0: hidden_size / num_attention_heads
  int64_t max_position_embeddings = 2048;
  double rms_norm_eps = 1e-6, attention_dropout = 0.0, initializer_range = 0.02;
  RopeConfig rope;
  bool qkv_bias = false, o_bias = false, mlp_bias = false;  // HF attention_bias sets q/k/v/o; Qwen 2 has q/k/v only
  bool qk_norm = false;  // Qwen 3's and Gemma 3's q_norm / k_norm: RMSNorm over each head (set by model_type)
  // Gemma 3 (model_type gemma3_text, set by it): RMSNorm weights are offsets from one, applied
  // in fp32 (x̂·(1 + w)); embeddings scaled by √hidden_size (in the weights' dtype) with
  // pad_token_id's row untrained; GELU (tanh) gating; norms after attention and around the MLP;
  // queries scaled by query_pre_attn_scalar^-½; the sliding layers rotate by local_rope.
  bool gemma = false;
  int64_t query_pre_attn_scalar = 0;  // 0: head_dim
  RopeConfig local_rope;
  bool tie_word_embeddings = false;
  // Keys a query may see: the last sliding_window positions (Mistral, Qwen 2's sliding
  // layers); 0 = all. sliding_layers: which layers use the window (empty = all, when set).
  int64_t sliding_window = 0;
  std::vector<bool> sliding_layers;
  std::vector<int64_t> bos_token_id, eos_token_id, pad_token_id;  // for config.json and generation defaults
  // > 0: HF's LlamaForSequenceClassification (Qwen2..., Mistral...): no lm_head, a `score`
  // Linear (num_labels, C) without bias on the last token that is not pad_token_id (the last
  // token with no pad id, batches of one row only); logits (B, num_labels), the loss as the
  // encoders' (problem_type, else by num_labels and the labels' dtype). A reward model is num_labels = 1.
  int64_t num_labels = 0;
  std::vector<std::string> labels;  // id2label's names
  std::string problem_type;
};
ModulePtr make_llama(const LlamaConfig& config);

// BERT-like sequence classifier with HF BertForSequenceClassification's names (see
// encoder_classifier.cpp). Reads input_ids, attention_mask, token_type_ids, labels.
struct EncoderConfig {
  int64_t vocab_size = 30522, max_position_embeddings = 512, type_vocab_size = 2, n_layer = 2, n_head = 4, hidden_size = 128,
          intermediate_size = 512;
  // HF's hidden_dropout_prob; attention_probs_dropout_prob and classifier_dropout are the same
  // unless given (a BERT config.json gives them apart).
  double dropout = 0.1;
  std::optional<double> attn_dropout, classifier_dropout;
  double attention_dropout() const { return attn_dropout.value_or(dropout); }
  double head_dropout() const { return classifier_dropout.value_or(dropout); }
  int64_t num_labels = 2;  // 1 = regression (MSE)
  double layer_norm_eps = 1e-12;
  int64_t pad_token_id = 0;  // the word embedding row that gets no gradient
  double initializer_range = 0.02;
  // From a config.json: id2label's names (saved back), and problem_type ("regression",
  // "single_label_classification", "multi_label_classification"; empty: from the labels).
  std::vector<std::string> labels;
  std::string problem_type;
  // "bert" (BertForSequenceClassification) or "roberta", "xlm-roberta", "camembert"
  // (RobertaForSequenceClassification and its multilingual and French namesakes:
  // positions counted from pad_token_id + 1 over the non-padding tokens, no pooler, a
  // dense → tanh → out_proj head); its config.json's bos/eos ids are written back (-1: none);
  // "electra" (ElectraForSequenceClassification: BERT's positions, no pooler, a dense → GELU →
  // out_proj head, embeddings of embedding_size projected to hidden_size).
  std::string model_type = "bert";
  int64_t bos_token_id = -1, eos_token_id = -1;
  // *ForTokenClassification: a label per token (logits (B, T, num_labels), cross-entropy over
  // the tokens whose label is not -100), the head on every position, no pooler.
  bool per_token = false;
  // *ForMaskedLM (masked_lm_head.h): logits (B, T, vocab_size) from the pretraining head tied to
  // the word embedding, cross-entropy over the tokens whose label is not -100; no pooler.
  bool masked_lm = false;
  // *ForQuestionAnswering (extractive QA, run_qa.py): qa_outputs (H → 2) on every position, no
  // pooler; logits (B, T, 2) = start and end logits, the loss from start_positions and
  // end_positions (encoder_parts.h). num_labels is 2. DistilBERT's head drops out qa_dropout first.
  bool question_answering = false;
  double qa_dropout = 0.1;
  // *ForMultipleChoice (run_swag.py): input_ids (B, C, T), a choice per row of C; each choice
  // scored by the sequence classifier's head with one output (RoBERTa: its pooler, then dropout
  // and a linear `classifier`; ELECTRA: `sequence_summary`, dense → GELU → dropout of
  // summary_last_dropout, then `classifier`); logits (B, C), cross-entropy with labels (B).
  bool multiple_choice = false;
  double summary_last_dropout = 0.1;
  // "albert" (albert.cpp) and "electra": the embedding's own width (0: hidden_size), projected
  // to hidden_size. ALBERT: n_layer steps over hidden_groups groups of inner_group_num shared
  // layers; hidden_act "gelu_new" (tanh GELU) or "gelu". The other encoders use exact GELU.
  int64_t embedding_size = 0, hidden_groups = 1, inner_group_num = 1;
  std::string hidden_act = "gelu";
  std::string family() const;        // transformers' class prefix: "Bert", "Roberta", "XLMRoberta", ... (bert_config.cpp)
  std::string architecture() const;  // "BertForSequenceClassification", ...
};
ModulePtr make_encoder_classifier(const EncoderConfig& config);
// The encoders by config.json's model_type: "bert", "distilbert", "albert", "electra", and RoBERTa's
// architecture under its three names ("roberta", "xlm-roberta", "camembert"; bert_config.cpp).
bool is_encoder_type(const std::string& model_type);
bool is_roberta_type(const std::string& model_type);
// The body's name in the state dict: "bert", "roberta" (for all three), "distilbert", "albert" or "electra".
std::string encoder_prefix(const std::string& model_type);

}  // namespace runner::models
