// Gradient checkpointing (runtime/models/activation_checkpoint.h): the same losses and
// gradients as without it, dropout included, with the blocks really run twice in training
// and once elsewhere. With activation offload (activation_offload.h) the same bits again,
// with the blocks' own inputs, and only those, copied to the host.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include "runtime/models/activation_checkpoint.h"
#include "runtime/models/builtin.h"
#include "runtime/models/layers.h"

using namespace runner::models;

namespace {

// A layer that counts its forward runs.
class Counting : public Module {
 public:
  Counting() : Module("Counting") { register_parameter("w", at::randn({6, 6}) * 0.3); }
  at::Tensor forward_impl(const at::Tensor& x) override {
    ++runs;
    return at::tanh(at::matmul(x, parameter("w")));
  }
  int runs = 0;
};

struct Step {
  at::Tensor loss;
  std::vector<at::Tensor> grads;
  double next_random;  // the generator's next draw after the step
};

Step train_step(Module& model, const TensorMap& batch, bool checkpoint, ActivationOffload offload = ActivationOffload::kOff) {
  if (checkpoint) EXPECT_GT(enable_gradient_checkpointing(model, offload), 0);
  model.train();
  at::manual_seed(7);
  const TensorMap out = model.forward_batch(batch);
  at::Tensor loss = out.at("loss");
  loss.backward();
  Step s{loss.detach(), {}, at::rand({1}).item<double>()};
  for (const auto& p : model.parameters()) s.grads.push_back(p.grad().defined() ? p.grad().clone() : at::zeros_like(p));
  return s;
}

void expect_same(const Step& a, const Step& b) {
  EXPECT_TRUE(at::allclose(a.loss, b.loss, 1e-6, 0)) << a.loss.item<double>() << " vs " << b.loss.item<double>();
  ASSERT_EQ(a.grads.size(), b.grads.size());
  for (size_t i = 0; i < a.grads.size(); ++i) {
    const double scale = a.grads[i].abs().max().item<double>();
    EXPECT_LE((a.grads[i] - b.grads[i]).abs().max().item<double>(), 1e-6 * scale + 1e-9) << "gradient " << i;
  }
  EXPECT_EQ(a.next_random, b.next_random) << "the checkpointed run drew a different number of random values";
}

GPTConfig small_gpt() {
  GPTConfig c;
  c.vocab_size = 40;
  c.block_size = 16;
  c.n_layer = 3;
  c.n_head = 2;
  c.n_embd = 16;
  c.dropout = 0.2;  // the recompute must see the same dropout masks
  return c;
}

}  // namespace

TEST(GradientCheckpointing, GptWithDropoutHasTheSameLossAndGradients) {
  at::manual_seed(0);
  const at::Tensor ids = at::randint(0, 40, {4, 16});
  const TensorMap batch{{"input_ids", ids}, {"labels", ids}};
  at::manual_seed(1);
  ModulePtr plain = make_gpt(small_gpt());
  at::manual_seed(1);
  ModulePtr ckpt = make_gpt(small_gpt());
  EXPECT_EQ(enable_gradient_checkpointing(*ckpt), 3);  // the three GPT2Blocks
  expect_same(train_step(*plain, batch, false), train_step(*ckpt, batch, true));
}

TEST(GradientCheckpointing, EncoderWithPaddingMaskHasTheSameLossAndGradients) {
  EncoderConfig c;
  c.vocab_size = 30;
  c.max_position_embeddings = 12;
  c.hidden_size = 16;
  c.n_layer = 2;
  c.n_head = 2;
  c.intermediate_size = 32;
  c.num_labels = 3;
  c.dropout = 0.1;
  at::manual_seed(0);
  const at::Tensor ids = at::randint(1, 30, {3, 12});
  at::Tensor mask = at::ones({3, 12}, at::kLong);
  mask.index_put_({1, at::indexing::Slice(8)}, 0);
  const TensorMap batch{{"input_ids", ids}, {"attention_mask", mask}, {"labels", at::tensor({0, 2, 1})}};
  at::manual_seed(1);
  ModulePtr plain = make_encoder_classifier(c);
  at::manual_seed(1);
  ModulePtr ckpt = make_encoder_classifier(c);
  EXPECT_EQ(enable_gradient_checkpointing(*ckpt), 2);
  expect_same(train_step(*plain, batch, false), train_step(*ckpt, batch, true));
}

TEST(GradientCheckpointing, SequentialChildrenRunTwiceInTrainingAndOnceOtherwise) {
  at::manual_seed(0);
  auto a = std::make_shared<Counting>(), b = std::make_shared<Counting>();
  Sequential seq({a, std::make_shared<Dropout>(0.3), b});
  EXPECT_EQ(enable_gradient_checkpointing(seq), 3);
  at::manual_seed(0);
  auto a0 = std::make_shared<Counting>(), b0 = std::make_shared<Counting>();
  Sequential plain({a0, std::make_shared<Dropout>(0.3), b0});

  const at::Tensor x = at::randn({5, 6}).requires_grad_(true);
  const at::Tensor x0 = x.detach().clone().requires_grad_(true);
  at::manual_seed(3);
  at::Tensor y = seq.forward(x);
  EXPECT_EQ(a->runs, 1);  // forward: once
  y.pow(2).sum().backward();
  EXPECT_EQ(a->runs, 2);  // backward recomputed it
  EXPECT_EQ(b->runs, 2);
  const double after_ckpt = at::rand({1}).item<double>();
  at::manual_seed(3);
  plain.forward(x0).pow(2).sum().backward();
  EXPECT_EQ(at::rand({1}).item<double>(), after_ckpt);
  EXPECT_TRUE(at::allclose(x.grad(), x0.grad(), 1e-6, 1e-9));
  EXPECT_TRUE(at::allclose(a->parameter("w").grad(), a0->parameter("w").grad(), 1e-6, 1e-9));

  seq.eval();  // evaluation: no recompute
  seq.forward(x);
  EXPECT_EQ(a->runs, 3);
  seq.train();
  {
    c10::NoGradGuard no_grad;  // no backward will come
    seq.forward(x);
  }
  EXPECT_EQ(a->runs, 4);
}

TEST(GradientCheckpointing, ModelsWithoutBlocksReportNothingToCheckpoint) {
  Linear lin(3, 2);
  EXPECT_EQ(enable_gradient_checkpointing(lin), 0);
}

// The CPU runs the offload path only under the test switch (kToHostCopyingOnCpu): block
// inputs are copied out in forward and back in backward, and nothing changes by a bit.
TEST(ActivationOffload, GptWithDropoutHasTheSameBitsWithItsBlockInputsOnTheHost) {
  at::manual_seed(0);
  const at::Tensor ids = at::randint(0, 40, {4, 16});
  const TensorMap batch{{"input_ids", ids}, {"labels", ids}};
  at::manual_seed(1);
  ModulePtr ckpt = make_gpt(small_gpt());
  at::manual_seed(1);
  ModulePtr offloaded = make_gpt(small_gpt());
  const Step a = train_step(*ckpt, batch, true);
  const int64_t before = offloaded_bytes();
  const Step b = train_step(*offloaded, batch, true, ActivationOffload::kToHostCopyingOnCpu);
  EXPECT_EQ(offloaded_bytes() - before, 3 * 4 * 16 * 16 * 4);  // three blocks' (B, T, C) fp32 inputs
  EXPECT_TRUE(at::equal(a.loss, b.loss));
  ASSERT_EQ(a.grads.size(), b.grads.size());
  for (size_t i = 0; i < a.grads.size(); ++i) EXPECT_TRUE(at::equal(a.grads[i], b.grads[i])) << "gradient " << i;
  EXPECT_EQ(a.next_random, b.next_random);
}

TEST(ActivationOffload, OnlyInputsThatRequireGradGoAndTheCpuKeepsThemWithoutTheTestSwitch) {
  at::manual_seed(0);
  const at::Tensor w = at::randn({6, 6}).requires_grad_(true);
  const at::Tensor shared = at::randn({5, 6});  // like Llama's cos/sin: no grad, the same in every layer
  const CheckpointBody body = [&](const std::vector<at::Tensor>& in) { return at::tanh(at::matmul(in[0] * in[1], w)); };
  std::vector<at::Tensor> grads;
  for (ActivationOffload mode : {ActivationOffload::kOff, ActivationOffload::kToHost, ActivationOffload::kToHostCopyingOnCpu}) {
    at::manual_seed(2);
    const at::Tensor h = at::randn({5, 6}).requires_grad_(true);
    const int64_t before = offloaded_bytes();
    checkpointed(body, {h, shared}, mode).sum().backward();
    const int64_t expected = mode == ActivationOffload::kToHostCopyingOnCpu ? static_cast<int64_t>(h.nbytes()) : 0;
    EXPECT_EQ(offloaded_bytes() - before, expected) << static_cast<int>(mode);
    grads.push_back(h.grad().clone());
    grads.push_back(w.grad().clone());
    w.mutable_grad().reset();
  }
  for (size_t i = 2; i < grads.size(); ++i) EXPECT_TRUE(at::equal(grads[i], grads[i % 2])) << i;
}
