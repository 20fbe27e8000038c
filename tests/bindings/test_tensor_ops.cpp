// tensor_ops.cpp and the F / torch functions PyTorch recipes use, each against plain ATen on
// the same values (the Lua global X is the tensor below, as ATen's x).
#include <gmock/gmock.h>

#include "tests/bindings/lua_fixture.h"

using runner::testing::LuaFixture;
using ::testing::HasSubstr;
using TensorOps = LuaFixture;

namespace {
const char* kX = "local X = torch.tensor{{1.5, -2, 3, 0.25}, {4, 5.5, -6, 2}, {0, 1, 1, -1}} ";
at::Tensor x() { return at::tensor({1.5, -2.0, 3.0, 0.25, 4.0, 5.5, -6.0, 2.0, 0.0, 1.0, 1.0, -1.0}, at::kFloat).view({3, 4}); }
}  // namespace

TEST_F(TensorOps, SortingSelectionAndMasksEqualAten) {
  const std::string X = kX;
  auto [tv, ti] = x().topk(2, 1);
  EXPECT_TRUE(tensor(X + "local v, i = X:topk(2, 1) return v").equal(tv));
  EXPECT_TRUE(tensor(X + "local v, i = X:topk(2, 1) return i").equal(ti));
  EXPECT_TRUE(tensor(X + "local v, i = torch.topk(X, 1, 0, false) return v").equal(std::get<0>(x().topk(1, 0, false))));
  auto [sv, si] = x().sort(/*stable=*/true, 0, /*descending=*/true);
  EXPECT_TRUE(tensor(X + "local v, i = X:sort(0, true) return v").equal(sv));
  EXPECT_TRUE(tensor(X + "return X:argsort()").equal(std::get<1>(x().sort(true, -1, false))));
  EXPECT_TRUE(tensor(X + "return X:tril()").equal(x().tril()));
  EXPECT_TRUE(tensor(X + "return torch.triu(X, 1)").equal(x().triu(1)));
  EXPECT_TRUE(tensor("return torch.ones(3, 3):tril():eq(0)").equal(at::ones({3, 3}).tril().eq(0)));  // a causal mask's complement
  EXPECT_TRUE(tensor(X + "return X:masked_select(X:gt(1))").equal(x().masked_select(x().gt(1))));
  EXPECT_TRUE(tensor(X + "return X:nonzero()").equal(x().nonzero()));
  EXPECT_TRUE(tensor(X + "return X:scatter(1, torch.tensor{{0}, {1}, {2}}, 9)").equal(x().scatter(1, at::tensor({0, 1, 2}, at::kLong).view({3, 1}), 9)));
  EXPECT_TRUE(tensor(X + "return X:scatter_add(0, torch.tensor{{2, 0, 1, 0}}, torch.ones(1, 4))")
                  .equal(x().scatter_add(0, at::tensor({2, 0, 1, 0}, at::kLong).view({1, 4}), at::ones({1, 4}))));
  EXPECT_TRUE(tensor(X + "return X:isfinite():logical_and(X:gt(0))").equal(x().isfinite().logical_and(x().gt(0))));
  EXPECT_TRUE(tensor("return torch.tensor{0/0, 1/0, -1/0, 2}:nan_to_num(0, 5, -5)").equal(at::tensor({0.f, 5.f, -5.f, 2.f})));
  EXPECT_TRUE(tensor("return torch.tensor{0/0, 1}:isnan()").equal(at::tensor({1, 0}, at::kLong).to(at::kBool)));
}

TEST_F(TensorOps, SplittingLayoutAndProductsEqualAten) {
  const std::string X = kX;
  EXPECT_EQ(number(X + "return #X:chunk(2, 1)"), 2);
  EXPECT_TRUE(tensor(X + "return X:chunk(2, 1)[2]").equal(x().chunk(2, 1)[1]));
  EXPECT_TRUE(tensor(X + "return X:split({1, 3}, 1)[2]").equal(x().split_with_sizes({1, 3}, 1)[1]));
  EXPECT_TRUE(tensor(X + "return X:split(2)[2]").equal(x().split(2)[1]));
  EXPECT_TRUE(tensor(X + "return X:unbind()[3]").equal(x()[2]));
  EXPECT_TRUE(tensor(X + "return X:flip(0)").equal(x().flip({0})));
  EXPECT_TRUE(tensor(X + "return X:roll(1, 1)").equal(x().roll({1}, {1})));
  EXPECT_TRUE(tensor(X + "return X:tile(2, 1)").equal(x().repeat({2, 1})));
  EXPECT_TRUE(tensor(X + "return X['repeat'](X, 1, 2)").equal(x().repeat({1, 2})));
  EXPECT_TRUE(tensor(X + "return X:repeat_interleave(2, 0)").equal(x().repeat_interleave(2, 0)));
  EXPECT_TRUE(tensor(X + "return X:new_zeros(2, 2)").equal(at::zeros({2, 2})));
  EXPECT_TRUE(tensor(X + "return X:long():type_as(X)").equal(x().to(at::kLong).to(at::kFloat)));
  EXPECT_TRUE(tensor(X + "return X:mm(X:t())").allclose(x().mm(x().t())));
  EXPECT_TRUE(tensor(X + "return X:unsqueeze(0):bmm(X:t():unsqueeze(0))").allclose(x().mm(x().t()).unsqueeze(0)));
  EXPECT_TRUE(tensor(X + "return torch.einsum('ij,kj->ik', X, X)").allclose(x().mm(x().t())));
  EXPECT_TRUE(tensor(X + "return X:select(0, 0):outer(X:select(0, 1))").allclose(x()[0].outer(x()[1])));
  EXPECT_TRUE(tensor(X + "return X:norm(2, 1)").allclose(at::linalg_vector_norm(x(), 2, std::vector<int64_t>{1})));
  EXPECT_NEAR(number(X + "return X:norm():item()"), x().norm().item<double>(), 1e-5);
  EXPECT_TRUE(tensor(X + "return X:prod(1, true)").equal(x().prod(1, true)));
  EXPECT_TRUE(tensor(X + "return X:amax(0)").equal(x().amax({0})));
  EXPECT_EQ(number(X + "return (X:allclose(X + 1e-9) and 1 or 0) + (X:equal(X:clone()) and 10 or 0)"), 11);
  const auto perm = tensor("torch.manual_seed(1) return torch.randperm(6)");
  EXPECT_TRUE(std::get<0>(perm.sort()).equal(at::arange(6, at::kLong)));
  EXPECT_THAT(error_of(X + "return X:topk(1, 0, true, true, 5)"), HasSubstr("topk(k[, dim, largest, sorted]): too many arguments"));
}

TEST_F(TensorOps, FunctionalEqualsAten) {
  const std::string X = kX;
  EXPECT_TRUE(tensor(X + "return F.softplus(X, {beta = 2})").allclose(at::softplus(x(), 2, 20)));
  EXPECT_TRUE(tensor(X + "return F.leaky_relu(X, {negative_slope = 0.1})").allclose(at::leaky_relu(x(), 0.1)));
  EXPECT_TRUE(tensor(X + "return F.elu(X)").allclose(at::elu(x())));
  EXPECT_TRUE(tensor(X + "return F.logsigmoid(X)").allclose(at::log_sigmoid(x())));
  EXPECT_TRUE(tensor(X + "return F.softmin(X, 1)").allclose(at::softmax(-x(), 1)));
  EXPECT_TRUE(tensor(X + "return F.glu(X)").allclose(at::glu(x(), -1)));
  EXPECT_TRUE(tensor(X + "return F.normalize(X)").allclose(x() / at::linalg_vector_norm(x(), 2, std::vector<int64_t>{1}, true)));
  EXPECT_TRUE(tensor(X + "return F.cosine_similarity(X, X:flip(1), {dim = 1})").allclose(at::cosine_similarity(x(), x().flip({1}), 1)));
  EXPECT_TRUE(tensor(X + "return F.huber_loss(X, X * 0, {delta = 2})").allclose(at::huber_loss(x(), at::zeros_like(x()), at::Reduction::Mean, 2)));
  EXPECT_TRUE(tensor(X + "return F.binary_cross_entropy(X:sigmoid(), X:gt(0))")
                  .allclose(at::binary_cross_entropy(x().sigmoid(), x().gt(0).to(at::kFloat))));
  const std::string qkv = "torch.manual_seed(0) local q, k, v = torch.randn(1, 2, 5, 4), torch.randn(1, 2, 5, 4), torch.randn(1, 2, 5, 4) ";
  at::manual_seed(0);
  const auto q = at::randn({1, 2, 5, 4}), k = at::randn({1, 2, 5, 4}), v = at::randn({1, 2, 5, 4});
  EXPECT_TRUE(tensor(qkv + "return F.scaled_dot_product_attention(q, k, v, {is_causal = true})")
                  .allclose(at::scaled_dot_product_attention(q, k, v, c10::nullopt, 0.0, true), 1e-5, 1e-6));
  EXPECT_THAT(error_of(X + "return F.softplus(X, {betta = 2})"), HasSubstr("betta"));
}
