// The causal LMs' fused training loss (models/loss_only.h, kernels/linear_cross_entropy.h):
// under a LossOnlyScope models.gpt and the Llama family return the loss without logits, equal
// to the plain path's loss and gradients (fp32, rel 1e-5); outside a scope, or with the option
// off, they return logits as before. And generation, which keeps one position's logits in its
// prefill (logits_to_keep), produces what a plain full-forward greedy loop does.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include "runtime/models/builtin.h"
#include "runtime/models/generation.h"
#include "runtime/models/loss_only.h"

using namespace runner::models;

namespace {

double rel(const at::Tensor& a, const at::Tensor& b) {
  const double scale = b.abs().max().item<double>();
  return (a - b).abs().max().item<double>() / (scale > 0 ? scale : 1.0);
}

struct Step {
  TensorMap out;
  std::vector<at::Tensor> grads;
};

// One forward + backward of `model` with labels, inside a LossOnlyScope or not.
Step step(Module& model, const TensorMap& batch, bool loss_only) {
  for (const auto& p : model.parameters()) p.mutable_grad() = at::Tensor();
  Step s;
  if (loss_only) {
    const LossOnlyScope scope;
    s.out = model.forward_batch(batch);
  } else {
    s.out = model.forward_batch(batch);
  }
  s.out.at("loss").backward();
  for (const auto& p : model.parameters()) s.grads.push_back(p.grad().clone());
  return s;
}

// Labels with ignored positions: padding at the end of one row, a prompt at the start of the other.
TensorMap lm_batch(int64_t vocab, int64_t b, int64_t t) {
  const at::Tensor ids = at::randint(vocab, {b, t}, at::kLong);
  at::Tensor labels = ids.clone();
  labels[0].narrow(0, t - 3, 3).fill_(-100);
  labels[1].narrow(0, 0, 4).fill_(-100);
  return {{"input_ids", ids}, {"labels", labels}};
}

void expect_fused_equals_plain(Module& model, const TensorMap& batch) {
  model.train();
  const Step plain = step(model, batch, false);
  const Step fused = step(model, batch, true);
  EXPECT_EQ(plain.out.count("logits"), 1u);
  EXPECT_EQ(fused.out.count("logits"), 0u) << "the fused loss makes no logits";
  EXPECT_LE(rel(fused.out.at("loss"), plain.out.at("loss")), 1e-5);
  ASSERT_EQ(fused.grads.size(), plain.grads.size());
  const auto names = model.named_parameters();
  for (size_t i = 0; i < plain.grads.size(); ++i) EXPECT_LE(rel(fused.grads[i], plain.grads[i]), 1e-5) << names[i].first;
}

LlamaConfig small_llama(const std::string& type, bool tied) {
  LlamaConfig c;
  c.model_type = type;
  c.vocab_size = 97, c.hidden_size = 32, c.intermediate_size = 48, c.num_hidden_layers = 2, c.num_attention_heads = 4;
  c.num_key_value_heads = 2;
  c.tie_word_embeddings = tied;
  c.qkv_bias = type == "qwen2";
  return c;
}

}  // namespace

TEST(FusedLmLoss, GptEqualsThePlainLossAndGradients) {
  GPTConfig c;
  c.vocab_size = 97, c.block_size = 16, c.n_layer = 2, c.n_head = 4, c.n_embd = 32;
  at::manual_seed(0);
  ModulePtr model = make_gpt(c);  // tied: lm_head is transformer.wte
  expect_fused_equals_plain(*model, lm_batch(97, 2, 11));
}

TEST(FusedLmLoss, LlamaFamilyEqualsThePlainLossAndGradients) {
  for (const char* type : {"llama", "qwen2", "mistral"})
    for (bool tied : {false, true}) {
      SCOPED_TRACE(std::string(type) + (tied ? " tied" : " untied"));
      at::manual_seed(1);
      ModulePtr model = make_llama(small_llama(type, tied));
      expect_fused_equals_plain(*model, lm_batch(97, 2, 12));
    }
}

TEST(FusedLmLoss, LogitsWhenTheCallerMayReadThemOrTheOptionIsOff) {
  at::manual_seed(2);
  ModulePtr model = make_llama(small_llama("llama", false));
  const TensorMap batch = lm_batch(97, 2, 8);
  EXPECT_EQ(model->forward_batch(batch).count("logits"), 1u);  // no scope: evaluation, recipes
  {
    const LossOnlyScope scope;
    EXPECT_EQ(model->forward_batch({{"input_ids", batch.at("input_ids")}}).count("logits"), 1u);  // no labels, no loss to fuse
    model->set_fused_linear_cross_entropy(false);
    const TensorMap out = model->forward_batch(batch);
    EXPECT_EQ(out.count("logits"), 1u);
    EXPECT_EQ(out.count("loss"), 1u);
  }
  EXPECT_FALSE(loss_only());
}

TEST(FusedLmLoss, Bf16ModelLossIsTakenInFp32LikeTheFusedOne) {
  // HF's ForCausalLMLoss upcasts the logits; a bf16 model's plain loss is then the fused one's
  // up to the bf16 matmuls, not bf16's 3 significant digits.
  at::manual_seed(3);
  ModulePtr model = make_llama(small_llama("llama", false));
  model->to(at::kBFloat16);
  const TensorMap batch = lm_batch(97, 2, 12);
  c10::NoGradGuard no_grad;
  const at::Tensor plain = model->forward_batch(batch).at("loss");
  at::Tensor fused;
  {
    const LossOnlyScope scope;
    fused = model->forward_batch(batch).at("loss");
  }
  EXPECT_EQ(plain.scalar_type(), at::kFloat);
  EXPECT_EQ(fused.scalar_type(), at::kFloat);
  EXPECT_LE(rel(fused, plain), 1e-5);  // the same bf16 logits, each upcast, the same fp32 softmax
}

TEST(FusedLmLoss, GreedyGenerationEqualsAFullForwardLoop) {
  // generate() keeps only the last position's logits in its prefill and decodes with a
  // cache; a loop that runs the whole sequence each time and reads its last logits is the
  // plain computation, and the tokens must agree.
  at::manual_seed(4);
  ModulePtr model = make_llama(small_llama("llama", false));
  model->eval();
  const at::Tensor prompt = at::randint(97, {2, 7}, at::kLong);
  GenerationConfig g;
  g.max_new_tokens = 6;
  const at::Tensor generated = generate(*model, prompt, at::Tensor(), g);
  at::Tensor seq = prompt;
  {
    c10::NoGradGuard no_grad;
    for (int i = 0; i < 6; ++i) {
      const at::Tensor logits = model->forward_batch({{"input_ids", seq}}).at("logits");  // (B, T, V): every position
      seq = at::cat({seq, logits.select(1, -1).argmax(-1).unsqueeze(1)}, 1);
    }
  }
  EXPECT_TRUE(at::equal(generated, seq));
}
