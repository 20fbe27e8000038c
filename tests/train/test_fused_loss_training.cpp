// Training with the fused linear + cross-entropy (models/loss_only.h): the Trainer asks for
// the loss only in its training step and nowhere else, and a GPT or Llama run with the fused
// loss equals the plain-loss run (losses and weights after a few AdamW steps, fp32).
#include <gtest/gtest.h>

#include "runtime/models/loss_only.h"
#include "tests/train/gpu_fixture.h"

using namespace runner;
using namespace runner::testing;

namespace {

// Records, per mode, whether the caller asked for the loss only.
class LossOnlyProbe : public models::Module {
 public:
  LossOnlyProbe() : Module("LossOnlyProbe") { w = register_parameter("w", at::zeros({1})); }
  bool takes_batch() const override { return true; }
  models::TensorMap forward_batch_impl(const models::TensorMap& b) override {
    (is_training() ? in_training : in_evaluation).push_back(models::loss_only());
    const at::Tensor y = b.at("x") * w;
    return {{"logits", y}, {"loss", at::mse_loss(y, b.at("labels"))}};
  }
  at::Tensor w;
  std::vector<bool> in_training, in_evaluation;
};

// A compute_loss hook: recipe code may read the logits, so it must not run in the scope.
class HookReadsLogits : public train::Hooks {
 public:
  std::optional<train::LossResult> compute_loss(models::Module& model, const train::Batch& inputs, train::LossContext&) override {
    scoped.push_back(models::loss_only());
    auto out = model.forward_batch(inputs);
    return train::LossResult{out.at("loss"), out};
  }
  std::vector<bool> scoped;
};

Trained train_lm(models::ModulePtr model, bool fused, int64_t accumulation) {
  model->set_fused_linear_cross_entropy(fused);
  TrainingArguments a = gpt_args(fused ? "fused" : "plain");
  a.use_cpu = true;
  a.gradient_accumulation_steps = accumulation;
  a.per_device_train_batch_size = 4 / accumulation;
  a.weight_decay = 0.01;
  // Padded rows: ignored labels at the end of every other example.
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(7);
  const at::Tensor ids = at::randint(0, 64, {32, 24}, gen, at::kLong);
  at::Tensor labels = ids.clone();
  labels.slice(0, 0, 32, 2).narrow(1, 17, 7).fill_(-100);
  return train_model(a, model, std::make_shared<data::TensorDataset>(data::Batch{{"input_ids", ids}, {"labels", labels}}));
}

void expect_same_run(const Trained& fused, const Trained& plain) {
  ASSERT_EQ(fused.losses.size(), plain.losses.size());
  ASSERT_EQ(fused.losses.size(), 8u);
  for (size_t i = 0; i < plain.losses.size(); ++i) EXPECT_NEAR(fused.losses[i], plain.losses[i], 1e-5 * plain.losses[i]) << "step " << i + 1;
  // AdamW divides by √v: a gradient's rounding difference moves a weight by up to lr·rel.
  EXPECT_LT(max_rel(fused.weights, plain.weights), 1e-4);
}

}  // namespace

TEST(FusedLossTraining, OnlyTheDefaultTrainingStepAsksForTheLossOnly) {
  auto probe = std::make_shared<LossOnlyProbe>();
  TrainingArguments a = regression_args("probe");
  a.max_steps = 2;
  a.eval_strategy = "steps";
  a.eval_steps = 1;
  a.finalize();
  train::Datasets d;
  d.train = regression_data(32, 1);
  d.eval = regression_data(8, 2);
  train::Trainer(a, probe, d, nullptr, {}).train();
  ASSERT_FALSE(probe->in_training.empty());
  ASSERT_FALSE(probe->in_evaluation.empty());
  for (bool b : probe->in_training) EXPECT_TRUE(b);
  for (bool b : probe->in_evaluation) EXPECT_FALSE(b) << "evaluation collects the logits";
  EXPECT_FALSE(models::loss_only());

  auto hooks = std::make_shared<HookReadsLogits>();
  auto probe2 = std::make_shared<LossOnlyProbe>();
  a.output_dir = temp_output("probe_hook");
  train::Trainer(a, probe2, d, hooks, {}).train();
  ASSERT_FALSE(hooks->scoped.empty());
  for (bool b : hooks->scoped) EXPECT_FALSE(b) << "a recipe's compute_loss may read the logits";
}

TEST(FusedLossTraining, GptRunEqualsThePlainLossRun) {
  for (int64_t accumulation : {1, 2}) {
    SCOPED_TRACE("gradient_accumulation_steps " + std::to_string(accumulation));
    models::GPTConfig c = tiny_gpt();
    // Without biases: the attention's key bias has a true gradient of zero (softmax ignores a
    // constant added to every key), so its value is rounding noise that AdamW scales up to
    // the learning rate, and no relative tolerance can compare it between two computations.
    c.bias = false;
    at::manual_seed(0);
    const Trained fused = train_lm(models::make_gpt(c), true, accumulation);
    at::manual_seed(0);
    const Trained plain = train_lm(models::make_gpt(c), false, accumulation);
    expect_same_run(fused, plain);
  }
}

TEST(FusedLossTraining, LlamaRunEqualsThePlainLossRun) {
  models::LlamaConfig c;
  c.vocab_size = 64, c.hidden_size = 32, c.intermediate_size = 48, c.num_hidden_layers = 2, c.num_attention_heads = 4;
  c.num_key_value_heads = 2, c.max_position_embeddings = 32;
  at::manual_seed(1);
  const Trained fused = train_lm(models::make_llama(c), true, 2);
  at::manual_seed(1);
  const Trained plain = train_lm(models::make_llama(c), false, 2);
  expect_same_run(fused, plain);
}
