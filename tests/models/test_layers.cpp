#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/core/errors.h"
#include "runtime/models/layers.h"

using namespace runner;
using namespace runner::models;

TEST(Layers, LinearMatchesATenAndPyTorchInit) {
  at::manual_seed(0);
  Linear l(64, 8);
  EXPECT_EQ(l.weight.sizes(), at::IntArrayRef({8, 64}));
  const double bound = 1.0 / std::sqrt(64.0);
  EXPECT_LE(l.weight.abs().max().item<double>(), bound);
  EXPECT_GT(l.weight.abs().max().item<double>(), 0.8 * bound);  // really uniform over the range
  EXPECT_LE(l.bias.abs().max().item<double>(), bound);
  auto x = at::randn({5, 64});
  EXPECT_TRUE(at::allclose(l.forward(x), at::matmul(x, l.weight.t()) + l.bias));
  EXPECT_TRUE(l.weight.requires_grad());
}

TEST(Layers, StateDictUsesPyTorchNames) {
  auto seq = std::make_shared<Sequential>(std::vector<ModulePtr>{
      std::make_shared<Linear>(4, 3), std::make_shared<Activation>("ReLU"), std::make_shared<LayerNorm>(std::vector<int64_t>{3}),
      std::make_shared<Linear>(3, 2, false)});
  std::vector<std::string> names;
  for (auto& [n, t] : seq->state_dict()) names.push_back(n);
  EXPECT_EQ(names, (std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias", "3.weight"}));
  EXPECT_EQ(seq->num_parameters(), 4 * 3 + 3 + 3 + 3 + 3 * 2);
}

TEST(Layers, TiedWeightsAreOneParameterButTwoStateDictEntries) {
  auto root = std::make_shared<Module>("Tied");
  auto emb = root->register_module("wte", std::make_shared<Embedding>(10, 4));
  auto head = std::make_shared<Linear>(4, 10, false);
  root->register_module("lm_head", head);
  head->register_parameter("weight", emb->parameter("weight"));
  EXPECT_EQ(root->named_parameters().size(), 1u);
  EXPECT_EQ(root->state_dict().size(), 2u);
}

TEST(Layers, LoadStateDictCopiesAndReportsProblems) {
  Linear a(3, 2), b(3, 2);
  b.load_state_dict(a.state_dict());
  EXPECT_TRUE(b.weight.equal(a.weight));
  auto report = b.load_state_dict({{"weight", a.weight}}, /*strict=*/false);
  EXPECT_EQ(report.missing, std::vector<std::string>{"bias"});
  try {
    b.load_state_dict({{"weight", at::zeros({2, 4})}, {"bias", a.bias}});
    FAIL();
  } catch (const CheckpointError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("'weight': shape [2, 4] in the file, [2, 3] in the model"));
  }
  try {
    b.load_state_dict({{"weight", a.weight}, {"bias", a.bias}, {"extra", a.bias}});
    FAIL();
  } catch (const CheckpointError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("unexpected keys: extra"));
  }
}

TEST(Layers, ConvPoolFlattenEmbeddingDropoutMatchATen) {
  at::manual_seed(1);
  Conv2d conv(2, 4, {3, 3}, {1, 1}, {1, 1});
  MaxPool2d pool({2, 2}, {2, 2});
  Flatten flat;
  auto x = at::randn({2, 2, 8, 8});
  auto y = flat.forward(pool.forward(conv.forward(x)));
  auto ref = at::max_pool2d(at::conv2d(x, conv.weight, conv.bias, 1, 1), 2, 2).flatten(1);
  EXPECT_TRUE(at::allclose(y, ref));
  EXPECT_EQ(y.sizes(), at::IntArrayRef({2, 4 * 4 * 4}));

  Embedding emb(5, 3, 0);
  EXPECT_TRUE(emb.weight[0].eq(0).all().item<bool>());  // padding row starts at zero
  auto ids = at::tensor({0, 4, 2}, at::kLong);
  EXPECT_TRUE(emb.forward(ids).equal(emb.weight.index_select(0, ids)));

  Dropout drop(0.5);
  drop.eval();
  EXPECT_TRUE(drop.forward(x).equal(x));
  drop.train();
  EXPECT_FALSE(drop.forward(x).equal(x));
}

TEST(Layers, BadShapesAreRecipeErrors) {
  EXPECT_THROW(Linear(0, 3), RecipeError);
  EXPECT_THROW(Conv2d(3, 4, {3, 3}, {1, 1}, {0, 0}, {1, 1}, 2), RecipeError);
  EXPECT_THROW(Dropout(1.5), RecipeError);
  EXPECT_THROW(Activation("GELU", "fast"), RecipeError);
}
