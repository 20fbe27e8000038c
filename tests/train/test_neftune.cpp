// NEFTune (neftune_noise_alpha): the input embeddings' output gets uniform noise of scale
// alpha / sqrt(L * d) in training mode only, as HF's neftune_post_forward_hook adds it; the
// Trainer turns it on for train() and off after; a model without input embeddings, or an alpha
// that is not positive, is refused.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/models/layers.h"
#include "runtime/train/neftune.h"
#include "tests/train/gpu_fixture.h"

using namespace runner;
using namespace runner::testing;

namespace {

TEST(Neftune, NoiseIsUniformAtHfsScaleInTrainingOnly) {
  auto model = models::make_gpt(tiny_gpt());
  models::Module* embeddings = model->input_embeddings();
  ASSERT_NE(embeddings, nullptr);
  const at::Tensor ids = at::randint(0, 64, {4, 24}, at::kLong);
  model->train();
  const at::Tensor clean = embeddings->forward(ids).detach();
  const int64_t width = clean.size(2);
  {
    const train::NeftuneNoise noise(5.0, model.get());
    const at::Tensor diff = embeddings->forward(ids).detach() - clean;
    const double bound = 5.0 / std::sqrt(24.0 * static_cast<double>(width));
    EXPECT_LE(diff.abs().max().item<double>(), bound * (1 + 1e-6));
    // Uniform over [-bound, bound]: its extremes are reached and it is centred.
    EXPECT_GT(diff.abs().max().item<double>(), 0.95 * bound);
    EXPECT_LT(std::abs(diff.mean().item<double>()), 0.05 * bound);
    EXPECT_NEAR(diff.abs().mean().item<double>(), bound / 2, 0.05 * bound);
    model->eval();
    EXPECT_TRUE(at::equal(embeddings->forward(ids), clean));
    model->train();
  }
  EXPECT_FALSE(embeddings->has_output_hook());
  EXPECT_TRUE(at::equal(embeddings->forward(ids), clean));
}

// Gemma's input embeddings are the scaled ones (Gemma3TextScaledWordEmbedding), so the noise is
// added after the √C scale, as HF's hook on get_input_embeddings() adds it; the model does not
// scale them again.
TEST(Neftune, GemmasInputEmbeddingsAreTheScaledOnes) {
  models::LlamaConfig c;
  c.model_type = "gemma3_text";
  c.vocab_size = 64, c.hidden_size = 32, c.intermediate_size = 64, c.num_hidden_layers = 1, c.num_attention_heads = 2, c.head_dim = 16;
  c.sliding_window = 8;
  auto model = models::make_llama(c);
  auto* embeddings = dynamic_cast<models::Embedding*>(model->input_embeddings());
  ASSERT_NE(embeddings, nullptr);
  const at::Tensor ids = at::randint(1, 64, {2, 5}, at::kLong);
  EXPECT_TRUE(at::allclose(embeddings->forward(ids), at::embedding(embeddings->weight, ids) * std::sqrt(32.0)));
  model->train();
  const at::Tensor clean = embeddings->forward(ids).detach();
  const train::NeftuneNoise noise(5.0, model.get());
  const double bound = 5.0 / std::sqrt(5.0 * 32.0);
  EXPECT_LE((embeddings->forward(ids).detach() - clean).abs().max().item<double>(), bound * (1 + 1e-5));
}

TEST(Neftune, TrainerAddsNoiseForTrainingOnly) {
  TrainingArguments a = gpt_args("neftune_plain");
  a.use_cpu = true;
  at::manual_seed(0);
  auto plain_model = models::make_gpt(tiny_gpt());
  at::manual_seed(0);
  auto noisy_model = models::make_gpt(tiny_gpt());
  const Trained plain = train_model(a, plain_model, token_data(32, 24, 3));
  a.output_dir = temp_output("neftune_noisy");
  a.neftune_noise_alpha = 15.0;
  const Trained noisy = train_model(a, noisy_model, token_data(32, 24, 3));
  ASSERT_EQ(plain.losses.size(), noisy.losses.size());
  // The first step's loss already sees the noise; training went on with it.
  EXPECT_NE(plain.losses.front(), noisy.losses.front());
  EXPECT_GT(max_rel(plain.weights, noisy.weights), 1e-6);
  EXPECT_FALSE(noisy_model->input_embeddings()->has_output_hook());  // off again after train()
}

// model_init's model is the one trained: the noise goes on its embeddings (HF activates NEFTune
// after model_init), not on a recipe model it replaced, nor nowhere when there was none.
class GptInit : public train::Hooks {
 public:
  models::ModulePtr model_init() override {
    at::manual_seed(0);
    made = models::make_gpt(tiny_gpt());
    return made;
  }
  models::ModulePtr made;
};

TEST(Neftune, GoesOnModelInitsModel) {
  TrainingArguments a = gpt_args("neftune_init_plain");
  a.use_cpu = true;
  auto plain_hooks = std::make_shared<GptInit>(), noisy_hooks = std::make_shared<GptInit>();
  const Trained plain = train_model(a, nullptr, token_data(32, 24, 3), plain_hooks);
  a.output_dir = temp_output("neftune_init_noisy");
  a.neftune_noise_alpha = 15.0;
  const Trained noisy = train_model(a, nullptr, token_data(32, 24, 3), noisy_hooks);
  ASSERT_FALSE(plain.losses.empty());
  EXPECT_NE(plain.losses.front(), noisy.losses.front());
  EXPECT_FALSE(noisy_hooks->made->input_embeddings()->has_output_hook());
}

TEST(Neftune, RefusesModelsWithoutInputEmbeddingsAndNegativeAlpha) {
  RegressionModel regression;
  EXPECT_THROW(train::NeftuneNoise(5.0, &regression), ArgumentError);
  auto model = models::make_gpt(tiny_gpt());
  EXPECT_THROW(train::NeftuneNoise(-1.0, model.get()), ArgumentError);
  EXPECT_NO_THROW(train::NeftuneNoise(std::nullopt, &regression));  // off: nothing to check
  {
    const train::NeftuneNoise zero(0.0, model.get());  // HF's noise of width 0: no hook at all
    EXPECT_FALSE(model->input_embeddings()->has_output_hook());
  }
}

}  // namespace
