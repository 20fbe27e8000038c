// The masked-language-model head of transformers' *ForMaskedLM encoders (the pretraining head
// bert-base-uncased and roberta-base ship): dense → GELU → LayerNorm → a decoder onto the
// vocabulary whose weight is the word embedding (tied) and whose bias is the head's own.
// Registered on the model under each family's names, so the files load in transformers:
//
//   BERT        cls.predictions.transform.{dense, LayerNorm}.*, cls.predictions.bias
//               (cls.predictions.decoder.weight|bias: tied aliases, not saved)
//   RoBERTa     lm_head.{dense, layer_norm}.*, lm_head.bias (also XLM-R, CamemBERT)
//   DistilBERT  vocab_transform.*, vocab_layer_norm.*, vocab_projector.bias
//   ALBERT      predictions.{dense, LayerNorm}.*, predictions.bias; hidden_act (gelu_new)
//   ELECTRA     generator_predictions.{dense, LayerNorm}.*, generator_lm_head.bias
//
// ALBERT's and ELECTRA's dense maps hidden_size to embedding_size, the others' keep hidden_size.
#pragma once
#include <memory>

#include "runtime/models/builtin.h"
#include "runtime/models/layers.h"

namespace runner::models {

class MaskedLmHead {
 public:
  // Registers the head's modules on `model`; `embedding` (vocab, E) is the word embedding's weight.
  MaskedLmHead(Module& model, const EncoderConfig& c, const at::Tensor& embedding);
  at::Tensor forward(const at::Tensor& hidden) const;  // (B, T, H) → logits (B, T, vocab)

 private:
  std::shared_ptr<Linear> dense_;
  std::shared_ptr<LayerNorm> norm_;
  at::Tensor decoder_weight_, bias_;
  bool tanh_gelu_;
};

}  // namespace runner::models
