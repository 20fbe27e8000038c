#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/core/errors.h"
#include "runtime/models/builtin.h"

using namespace runner;
using namespace runner::models;

namespace {

EncoderConfig small(int64_t num_labels = 3) {
  EncoderConfig c;
  c.vocab_size = 100;
  c.max_position_embeddings = 16;
  c.n_layer = 2;
  c.n_head = 4;
  c.hidden_size = 32;
  c.intermediate_size = 64;
  c.num_labels = num_labels;
  return c;
}

}  // namespace

TEST(EncoderClassifier, HuggingFaceBertNames) {
  auto m = make_encoder_classifier(small());
  std::vector<std::string> names;
  for (const auto& [n, t] : m->state_dict()) names.push_back(n);
  EXPECT_THAT(names, ::testing::ElementsAreArray(std::vector<std::string>{
                         "bert.embeddings.word_embeddings.weight",
                         "bert.embeddings.position_embeddings.weight",
                         "bert.embeddings.token_type_embeddings.weight",
                         "bert.embeddings.LayerNorm.weight",
                         "bert.embeddings.LayerNorm.bias",
                         "bert.encoder.layer.0.attention.self.query.weight",
                         "bert.encoder.layer.0.attention.self.query.bias",
                         "bert.encoder.layer.0.attention.self.key.weight",
                         "bert.encoder.layer.0.attention.self.key.bias",
                         "bert.encoder.layer.0.attention.self.value.weight",
                         "bert.encoder.layer.0.attention.self.value.bias",
                         "bert.encoder.layer.0.attention.output.dense.weight",
                         "bert.encoder.layer.0.attention.output.dense.bias",
                         "bert.encoder.layer.0.attention.output.LayerNorm.weight",
                         "bert.encoder.layer.0.attention.output.LayerNorm.bias",
                         "bert.encoder.layer.0.intermediate.dense.weight",
                         "bert.encoder.layer.0.intermediate.dense.bias",
                         "bert.encoder.layer.0.output.dense.weight",
                         "bert.encoder.layer.0.output.dense.bias",
                         "bert.encoder.layer.0.output.LayerNorm.weight",
                         "bert.encoder.layer.0.output.LayerNorm.bias",
                         "bert.encoder.layer.1.attention.self.query.weight",
                         "bert.encoder.layer.1.attention.self.query.bias",
                         "bert.encoder.layer.1.attention.self.key.weight",
                         "bert.encoder.layer.1.attention.self.key.bias",
                         "bert.encoder.layer.1.attention.self.value.weight",
                         "bert.encoder.layer.1.attention.self.value.bias",
                         "bert.encoder.layer.1.attention.output.dense.weight",
                         "bert.encoder.layer.1.attention.output.dense.bias",
                         "bert.encoder.layer.1.attention.output.LayerNorm.weight",
                         "bert.encoder.layer.1.attention.output.LayerNorm.bias",
                         "bert.encoder.layer.1.intermediate.dense.weight",
                         "bert.encoder.layer.1.intermediate.dense.bias",
                         "bert.encoder.layer.1.output.dense.weight",
                         "bert.encoder.layer.1.output.dense.bias",
                         "bert.encoder.layer.1.output.LayerNorm.weight",
                         "bert.encoder.layer.1.output.LayerNorm.bias",
                         "bert.pooler.dense.weight",
                         "bert.pooler.dense.bias",
                         "classifier.weight",
                         "classifier.bias",
                     }));
  auto intermediate = m->child("bert")->child("encoder")->child("layer")->child("0")->child("intermediate")->child("dense");
  EXPECT_EQ(intermediate->parameter("weight").sizes(), at::IntArrayRef({64, 32}));  // nn.Linear: (out, in)
  EXPECT_EQ(m->child("classifier")->parameter("weight").sizes(), at::IntArrayRef({3, 32}));
  auto words = m->child("bert")->child("embeddings")->child("word_embeddings")->parameter("weight");
  EXPECT_TRUE(words[0].eq(0).all().item<bool>());  // padding row
  EXPECT_NEAR(words.narrow(0, 1, 99).std().item<double>(), 0.02, 0.002);
  EXPECT_EQ(m->input_names(), (std::vector<std::string>{"input_ids", "attention_mask", "token_type_ids", "labels"}));
}

TEST(EncoderClassifier, AttentionMaskHidesPadding) {
  auto m = make_encoder_classifier(small());
  m->eval();
  at::Tensor ids = at::randint(1, 100, {2, 10}, at::kLong);
  at::Tensor mask = at::ones({2, 10}, at::kLong);
  mask[0].narrow(0, 6, 4).fill_(0);  // first sequence: 6 tokens, then padding
  at::Tensor logits = m->forward_batch({{"input_ids", ids}, {"attention_mask", mask}}).at("logits");
  EXPECT_EQ(logits.sizes(), at::IntArrayRef({2, 3}));
  // Whatever sits in the padding does not change the output...
  at::Tensor other = ids.clone();
  other[0].narrow(0, 6, 4).random_(1, 100);
  at::Tensor again = m->forward_batch({{"input_ids", other}, {"attention_mask", mask}}).at("logits");
  EXPECT_TRUE(at::allclose(logits[0], again[0], 1e-5, 1e-6));
  // ...and it equals the unpadded sequence on its own.
  at::Tensor alone = m->forward_batch({{"input_ids", ids.narrow(0, 0, 1).narrow(1, 0, 6)}}).at("logits");
  EXPECT_TRUE(at::allclose(logits[0], alone[0], 1e-5, 1e-6));
  // Without the mask the padding is attended to.
  at::Tensor unmasked = m->forward_batch({{"input_ids", ids}}).at("logits");
  EXPECT_FALSE(at::allclose(logits[0], unmasked[0], 1e-5, 1e-6));
  EXPECT_TRUE(at::allclose(logits[1], unmasked[1], 1e-5, 1e-6));
  // An all-padding row stays finite.
  mask[1].fill_(0);
  EXPECT_TRUE(at::isfinite(m->forward_batch({{"input_ids", ids}, {"attention_mask", mask}}).at("logits")).all().item<bool>());
}

TEST(EncoderClassifier, TokenTypesMatter) {
  auto m = make_encoder_classifier(small());
  m->eval();
  at::Tensor ids = at::randint(1, 100, {1, 6}, at::kLong);
  at::Tensor zeros = at::zeros({1, 6}, at::kLong), types = zeros.clone();
  types.narrow(1, 3, 3).fill_(1);
  at::Tensor base = m->forward_batch({{"input_ids", ids}}).at("logits");
  EXPECT_TRUE(base.equal(m->forward_batch({{"input_ids", ids}, {"token_type_ids", zeros}}).at("logits")));
  EXPECT_FALSE(at::allclose(base, m->forward_batch({{"input_ids", ids}, {"token_type_ids", types}}).at("logits")));
}

TEST(EncoderClassifier, LossTypes) {
  at::Tensor ids = at::randint(1, 100, {4, 5}, at::kLong);
  auto cls = make_encoder_classifier(small(3));
  cls->eval();
  at::Tensor labels = at::tensor({0, 2, -100, 1}, at::kLong);
  TensorMap out = cls->forward_batch({{"input_ids", ids}, {"labels", labels}});
  at::Tensor logp = at::log_softmax(out.at("logits"), -1);
  const double want = -(logp[0][0] + logp[1][2] + logp[3][1]).item<double>() / 3;
  EXPECT_NEAR(out.at("loss").item<double>(), want, 1e-5);

  auto reg = make_encoder_classifier(small(1));
  reg->eval();
  at::Tensor targets = at::tensor({0.5, -1.0, 2.0, 0.0}, at::kDouble);
  out = reg->forward_batch({{"input_ids", ids}, {"labels", targets}});
  EXPECT_EQ(out.at("logits").sizes(), at::IntArrayRef({4, 1}));
  EXPECT_NEAR(out.at("loss").item<double>(), (out.at("logits").squeeze(1).to(at::kDouble) - targets).pow(2).mean().item<double>(), 1e-5);

  at::Tensor multi = at::tensor({1.0, 0.0, 1.0}, at::kFloat).repeat({4, 1});
  out = cls->forward_batch({{"input_ids", ids}, {"labels", multi}});
  EXPECT_NEAR(out.at("loss").item<double>(), at::binary_cross_entropy_with_logits(out.at("logits"), multi).item<double>(), 1e-6);

  EXPECT_THROW(cls->forward_batch({{"input_ids", ids}, {"labels", at::zeros({4, 2}, at::kLong)}}), RecipeError);
}

TEST(EncoderClassifier, RejectsBadInputs) {
  auto m = make_encoder_classifier(small());
  EXPECT_THROW(m->forward_batch({{"input_ids", at::ones({1, 17}, at::kLong)}}), RecipeError);
  EXPECT_THROW(m->forward_batch({{"input_ids", at::ones({1, 4}, at::kLong)}, {"attention_mask", at::ones({1, 5}, at::kLong)}}),
               RecipeError);
  EncoderConfig bad = small();
  bad.n_head = 5;
  EXPECT_THROW(make_encoder_classifier(bad), RecipeError);
}

TEST(EncoderClassifier, AbsurdSizesAreRefusedBeforeBuildingAnything) {
  EncoderConfig c = small();
  c.n_layer = 1000000;
  EXPECT_THAT([&] { make_encoder_classifier(c); }, ::testing::ThrowsMessage<RecipeError>(::testing::HasSubstr("more than 100000 layers")));
}
