#include <c10/core/GradMode.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/core/errors.h"
#include "runtime/models/builtin.h"

using namespace runner;
using namespace runner::models;

namespace {

std::vector<std::pair<std::string, std::vector<int64_t>>> layout(const Module& m) {
  std::vector<std::pair<std::string, std::vector<int64_t>>> out;
  for (const auto& [n, t] : m.state_dict()) out.emplace_back(n, t.sizes().vec());
  return out;
}

using Layout = std::vector<std::pair<std::string, std::vector<int64_t>>>;

}  // namespace

TEST(MLP, NamesShapesAndCrossEntropy) {
  MLPOptions o;
  o.sizes = {784, 64, 32, 10};
  o.dropout = 0.1;
  auto m = make_mlp(o);
  EXPECT_EQ(layout(*m), (Layout{{"layers.0.weight", {64, 784}},
                                {"layers.0.bias", {64}},
                                {"layers.1.weight", {32, 64}},
                                {"layers.1.bias", {32}},
                                {"layers.2.weight", {10, 32}},
                                {"layers.2.bias", {10}}}));
  m->eval();
  at::Tensor x = at::rand({5, 1, 28, 28});  // flattened beyond dim 0
  at::Tensor labels = at::tensor({1, 2, 3, -100, 9}, at::kLong);
  TensorMap out = m->forward_batch({{"pixel_values", x}, {"labels", labels}});
  EXPECT_EQ(out.at("logits").sizes(), at::IntArrayRef({5, 10}));
  at::Tensor logp = at::log_softmax(out.at("logits"), -1);
  const double want = -(logp[0][1] + logp[1][2] + logp[2][3] + logp[4][9]).item<double>() / 4;
  EXPECT_NEAR(out.at("loss").item<double>(), want, 1e-5);
  // The same maths by hand (ReLU between layers, none after the last).
  auto l = [&](int i, const at::Tensor& h) {
    return at::linear(h, m->child("layers")->child(std::to_string(i))->parameter("weight"),
                      m->child("layers")->child(std::to_string(i))->parameter("bias"));
  };
  at::Tensor manual = l(2, at::relu(l(1, at::relu(l(0, x.flatten(1))))));
  EXPECT_TRUE(at::allclose(out.at("logits"), manual));
}

TEST(MLP, MseLossAndActivations) {
  MLPOptions o;
  o.sizes = {3, 8, 1};
  o.loss = "mse";
  o.activation = "tanh";
  auto m = make_mlp(o);
  at::Tensor x = at::randn({6, 3});
  at::Tensor y = at::randn({6}, at::kDouble);
  TensorMap out = m->forward_batch({{"x", x}, {"labels", y}});
  EXPECT_EQ(out.at("logits").sizes(), at::IntArrayRef({6, 1}));
  EXPECT_NEAR(out.at("loss").item<double>(), (out.at("logits").squeeze(1).to(at::kDouble) - y).pow(2).mean().item<double>(), 1e-6);
  for (const char* act : {"relu", "GELU", "gelu_tanh", "sigmoid", "silu"}) {
    o.activation = act;
    EXPECT_NO_THROW(make_mlp(o)->forward_batch({{"x", x}}));
  }
  o.activation = "swish";
  EXPECT_THROW(make_mlp(o), RecipeError);
  o.activation = "relu";
  o.loss = "hinge";
  EXPECT_THROW(make_mlp(o), RecipeError);
  o.sizes = {3};
  EXPECT_THROW(make_mlp(o), RecipeError);
}

TEST(MLP, CrossEntropyWantsClassIds) {
  MLPOptions o;
  o.sizes = {3, 4};
  auto m = make_mlp(o);
  at::Tensor x = at::randn({2, 3});
  try {
    m->forward_batch({{"x", x}, {"labels", at::tensor({0.5, 1.5})}});
    FAIL();
  } catch (const RecipeError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("cross-entropy needs integer class labels"));
  }
  // Class probabilities shaped like the logits are soft targets.
  at::Tensor soft = at::softmax(at::randn({2, 4}), -1);
  TensorMap out = m->forward_batch({{"x", x}, {"labels", soft}});
  EXPECT_NEAR(out.at("loss").item<double>(), -(soft * at::log_softmax(out.at("logits"), -1)).sum(-1).mean().item<double>(), 1e-6);
}

TEST(MLP, InputFieldSelection) {
  MLPOptions o;
  o.sizes = {2, 3};
  auto m = make_mlp(o);
  EXPECT_TRUE(m->input_names().empty());  // chosen per batch: keep every field
  const at::Tensor two = at::randn({4, 2}), bad = at::randn({4, 5});
  // pixel_values, then x, then the first non-label field.
  EXPECT_NO_THROW(m->forward_batch({{"pixel_values", two}, {"x", bad}, {"a", bad}}));
  EXPECT_NO_THROW(m->forward_batch({{"x", two}, {"a", bad}}));
  EXPECT_NO_THROW(m->forward_batch({{"labels", at::zeros({4}, at::kLong)}, {"z", two}}));
  EXPECT_NO_THROW(m->forward_batch({{"a", two}, {"b", bad}}));
  EXPECT_THROW(m->forward_batch({{"a", bad}, {"b", two}}), RecipeError);
  EXPECT_THROW(m->forward_batch({{"labels", two}}), RecipeError);
  o.input = "b";
  auto named = make_mlp(o);
  EXPECT_EQ(named->input_names(), (std::vector<std::string>{"b", "labels"}));
  EXPECT_NO_THROW(named->forward_batch({{"a", bad}, {"b", two}}));
  try {
    named->forward_batch({{"a", two}});
    FAIL();
  } catch (const RecipeError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("\"b\", which is missing (fields: a)"));
  }
  try {
    m->forward_batch({{"x", bad}});
    FAIL();
  } catch (const RecipeError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("5 features per example"));
  }
}

TEST(LinearModel, RegressionWithMse) {
  LinearModelOptions o;
  o.in_features = 3;
  o.out_features = 2;
  auto m = make_linear_model(o);
  EXPECT_EQ(layout(*m), (Layout{{"linear.weight", {2, 3}}, {"linear.bias", {2}}}));
  at::Tensor x = at::randn({5, 3}), y = at::randn({5, 2});
  TensorMap out = m->forward_batch({{"x", x}, {"labels", y}});
  at::Tensor manual = at::linear(x, m->child("linear")->parameter("weight"), m->child("linear")->parameter("bias"));
  EXPECT_TRUE(at::allclose(out.at("logits"), manual));
  EXPECT_NEAR(out.at("loss").item<double>(), (manual - y).pow(2).mean().item<double>(), 1e-6);
  auto scalar = make_linear_model({});
  EXPECT_EQ(scalar->forward_batch({{"x", at::randn({7})}}).at("logits").sizes(), at::IntArrayRef({7, 1}));
}

TEST(CNN, ShapesNamesAndLoss) {
  auto m = make_cnn({});
  EXPECT_EQ(layout(*m), (Layout{{"convs.0.weight", {32, 1, 3, 3}},
                                {"convs.0.bias", {32}},
                                {"convs.1.weight", {64, 32, 3, 3}},
                                {"convs.1.bias", {64}},
                                {"fc1.weight", {128, 64 * 12 * 12}},
                                {"fc1.bias", {128}},
                                {"fc2.weight", {10, 128}},
                                {"fc2.bias", {10}}}));
  m->eval();
  at::Tensor images = at::rand({3, 1, 28, 28});
  at::Tensor labels = at::tensor({4, 0, 9}, at::kLong);
  TensorMap out = m->forward_batch({{"pixel_values", images}, {"labels", labels}});
  EXPECT_EQ(out.at("logits").sizes(), at::IntArrayRef({3, 10}));
  EXPECT_NEAR(out.at("loss").item<double>(), at::cross_entropy_loss(out.at("logits"), labels).item<double>(), 1e-6);
  // (B, 28, 28) and flattened (B, 784) pixels are the same images.
  EXPECT_TRUE(at::allclose(out.at("logits"), m->forward_batch({{"pixel_values", images.squeeze(1)}}).at("logits")));
  EXPECT_TRUE(at::allclose(out.at("logits"), m->forward_batch({{"x", images.flatten(1)}}).at("logits")));
  EXPECT_TRUE(m->forward_batch({{"x", (images * 255).to(at::kByte)}}).at("logits").is_floating_point());
  EXPECT_THROW(m->forward_batch({{"x", at::rand({3, 1, 32, 32})}}), RecipeError);

  CNNOptions rgb;
  rgb.in_channels = 3;
  rgb.channels = {8, 16, 16};
  rgb.image_size = 32;
  rgb.hidden = 20;
  rgb.num_classes = 4;
  auto c = make_cnn(rgb);
  EXPECT_EQ(c->child("fc1")->parameter("weight").sizes(), at::IntArrayRef({20, 16 * 13 * 13}));  // 32 - 3·2, pooled
  EXPECT_EQ(c->forward_batch({{"image", at::rand({2, 3, 32, 32})}}).at("logits").sizes(), at::IntArrayRef({2, 4}));
  rgb.image_size = 5;  // two convolutions leave 1×1: nothing to pool
  rgb.channels = {8, 8};
  EXPECT_THROW(make_cnn(rgb), RecipeError);
}

TEST(CNN, GradientsReachEveryParameter) {
  at::manual_seed(3);
  CNNOptions o;
  o.channels = {4, 8};
  o.hidden = 16;
  o.num_classes = 2;
  o.dropout = 0;
  auto m = make_cnn(o);
  const TensorMap batch{{"x", at::rand({8, 1, 28, 28})}, {"labels", at::randint(0, 2, {8}, at::kLong)}};
  at::Tensor loss = m->forward_batch(batch).at("loss");
  loss.backward();
  for (const auto& [name, p] : m->named_parameters()) {
    ASSERT_TRUE(p.grad().defined()) << name;
    EXPECT_GT(p.grad().abs().sum().item<double>(), 0) << name;
  }
  {
    c10::NoGradGuard g;  // a small step down the gradient lowers the loss
    for (auto& p : m->parameters()) p.sub_(1e-2 * p.grad());
  }
  EXPECT_LT(m->forward_batch(batch).at("loss").item<double>(), loss.item<double>());
}
