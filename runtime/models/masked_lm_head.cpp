#include "runtime/models/masked_lm_head.h"

#include <c10/core/GradMode.h>

#include "runtime/models/bert_config.h"
#include "runtime/models/encoder_parts.h"
#include "runtime/models/parameter_store.h"

namespace runner::models {

namespace {

// A module holding the tied decoder: the embedding as its weight, `bias` as its bias, which is
// set to the registered tensor (under MetaInit registering replaces a meta tensor by a
// placeholder the files' values go into).
std::shared_ptr<Module> decoder(const at::Tensor& weight, at::Tensor& bias) {
  auto d = std::make_shared<Module>("Linear");
  d->register_parameter("weight", weight);
  bias = d->register_parameter("bias", bias);
  return d;
}

}  // namespace

MaskedLmHead::MaskedLmHead(Module& model, const EncoderConfig& c, const at::Tensor& embedding)
    : decoder_weight_(embedding), tanh_gelu_(c.model_type == "albert" && c.hidden_act == "gelu_new") {
  const std::string& type = c.model_type;
  const int64_t width = type == "albert" || type == "electra" ? embedding.size(1) : c.hidden_size;
  dense_ = init_dense(c.hidden_size, width, c.initializer_range);
  norm_ = std::make_shared<LayerNorm>(std::vector<int64_t>{width}, type == "distilbert" ? 1e-12 : c.layer_norm_eps);
  at::Tensor bias = at::empty({c.vocab_size}, param_options());
  if (!meta_init_active()) {
    c10::NoGradGuard no_grad;
    bias.zero_();
  }
  if (type == "bert") {
    auto predictions = std::make_shared<Module>("BertLMPredictionHead");
    auto transform = std::make_shared<Module>("BertPredictionHeadTransform");
    transform->register_module("dense", dense_);
    transform->register_module("LayerNorm", norm_);
    predictions->register_module("transform", transform);
    bias_ = predictions->register_parameter("bias", bias);  // before the decoder: its bias is this one
    predictions->register_module("decoder", decoder(embedding, bias_));
    auto cls = std::make_shared<Module>("BertOnlyMLMHead");
    cls->register_module("predictions", predictions);
    model.register_module("cls", cls);
  } else if (is_roberta_type(type)) {
    auto head = std::make_shared<Module>(c.family() + "LMHead");
    head->register_module("dense", dense_);
    head->register_module("layer_norm", norm_);
    bias_ = head->register_parameter("bias", bias);
    head->register_module("decoder", decoder(embedding, bias_));
    model.register_module("lm_head", head);
  } else if (type == "albert") {
    auto head = std::make_shared<Module>("AlbertMLMHead");
    head->register_module("LayerNorm", norm_);
    bias_ = head->register_parameter("bias", bias);
    head->register_module("dense", dense_);
    head->register_module("decoder", decoder(embedding, bias_));
    model.register_module("predictions", head);
  } else {  // DistilBERT and ELECTRA: the projector's bias is its own
    bias_ = bias;
    auto projector = decoder(embedding, bias_);
    if (type == "distilbert") {
      model.register_module("vocab_transform", dense_);
      model.register_module("vocab_layer_norm", norm_);
      model.register_module("vocab_projector", projector);
    } else {
      auto predictions = std::make_shared<Module>("ElectraGeneratorPredictions");
      predictions->register_module("LayerNorm", norm_);
      predictions->register_module("dense", dense_);
      model.register_module("generator_predictions", predictions);
      model.register_module("generator_lm_head", projector);
    }
  }
}

at::Tensor MaskedLmHead::forward(const at::Tensor& hidden) const {
  at::Tensor h = dense_->forward(hidden);
  h = norm_->forward(tanh_gelu_ ? at::gelu(h, "tanh") : at::gelu(h));
  return at::linear(h, decoder_weight_, bias_);
}

}  // namespace runner::models
