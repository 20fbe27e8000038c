// The fused tanh-GELU against ATen's at::gelu(x, "tanh"): values, gradients, edge values,
// shapes that do not fill a vector register, non-contiguous inputs, and the fallbacks.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <torch/csrc/autograd/autograd.h>

#include <limits>

#include "runtime/kernels/gelu.h"

using runner::kernels::gelu_tanh;

namespace {

// Values over GELU's whole interesting range and beyond, where its tails saturate.
at::Tensor probe(int64_t n) {
  at::manual_seed(0);
  return at::cat({at::randn({n}) * 3, at::linspace(-30, 30, 4001), at::tensor({0.0f, -0.0f, 1e-20f, -1e-20f, 1e4f, -1e4f, 1e30f, -1e30f})});
}

std::pair<at::Tensor, at::Tensor> value_and_grad(const at::Tensor& x0, bool fused, const at::Tensor& g) {
  at::Tensor x = x0.detach().clone().requires_grad_(true);
  at::Tensor y = fused ? gelu_tanh(x) : at::gelu(x, "tanh");
  y.backward(g);
  return {y.detach(), x.grad()};
}

}  // namespace

TEST(GeluTanh, ValuesAndGradientsEqualAten) {
  for (int64_t n : {0, 1, 7, 15, 16, 17, 100003}) {  // remainders of 8- and 16-wide vectors; more than one thread chunk
    const at::Tensor x = probe(n);
    const at::Tensor g = at::randn_like(x);
    auto [y_ref, dx_ref] = value_and_grad(x, false, g);
    auto [y, dx] = value_and_grad(x, true, g);
    // Both are float: each is within a few ulp of float64 (next test); ATen's gradient is NaN at |x| = 1e30 (x³ overflows: 0·∞); ours is the limit, 1 or 0.
    const at::Tensor ok = dx_ref.isfinite();
    EXPECT_TRUE(at::allclose(y, y_ref, 1e-5, 5e-6)) << "n=" << n << " max diff " << (y - y_ref).abs().max().item<float>();
    EXPECT_TRUE(at::allclose(dx.masked_select(ok), dx_ref.masked_select(ok), 1e-5, 5e-6))
        << "n=" << n << " max diff " << (dx - dx_ref).masked_select(ok).abs().max().item<float>();
    EXPECT_EQ(ok.logical_not().sum().item<int64_t>(), 2);
    EXPECT_TRUE(y.isfinite().all().item<bool>());
    EXPECT_TRUE(dx.isfinite().all().item<bool>());
  }
}

TEST(GeluTanh, NoLessAccurateThanAtenAgainstFloat64) {
  // Values and gradients against ATen in float64, on values a network actually sees.
  at::manual_seed(1);
  const at::Tensor x = at::randn({1 << 16}) * 4;
  const at::Tensor g = at::randn_like(x);
  auto [y, dx] = value_and_grad(x, true, g);
  auto [y_aten, dx_aten] = value_and_grad(x, false, g);
  auto [y64, dx64] = value_and_grad(x.to(at::kDouble), false, g.to(at::kDouble));
  const auto err = [](const at::Tensor& t, const at::Tensor& exact) {
    return ((t.to(at::kDouble) - exact).abs() / exact.abs().clamp_min(1e-3)).max().item<double>();
  };
  // Float rounding of z = 2·√(2/π)·(x + 0.044715·x³) alone moves σ(z) by |z|·6e-8 relative in
  // the negative tail: ATen's float kernel has the same error.
  EXPECT_LT(err(y, y64), 2e-6);
  EXPECT_LT(err(y, y64), 1.5 * err(y_aten, y64) + 1e-7) << "ATen's: " << err(y_aten, y64);
  EXPECT_LT(err(dx, dx64), 1.5 * err(dx_aten, dx64) + 1e-7) << "ATen's: " << err(dx_aten, dx64);
}

TEST(GeluTanh, NanPropagatesAndInfinitiesSaturate) {
  const float inf = std::numeric_limits<float>::infinity();
  const at::Tensor y = gelu_tanh(at::tensor({std::numeric_limits<float>::quiet_NaN(), inf, -inf}));
  EXPECT_TRUE(std::isnan(y[0].item<float>()));
  EXPECT_EQ(y[1].item<float>(), inf);
  EXPECT_TRUE(std::isnan(y[2].item<float>()));  // -inf·0, as ATen's
  at::Tensor x = at::tensor({std::numeric_limits<float>::quiet_NaN(), 1.0f}).requires_grad_(true);
  gelu_tanh(x).sum().backward();
  EXPECT_TRUE(std::isnan(x.grad()[0].item<float>()));
  EXPECT_FALSE(std::isnan(x.grad()[1].item<float>()));
}

TEST(GeluTanh, NonContiguousInputsAndBatchedShapes) {
  at::manual_seed(2);
  const at::Tensor base = at::randn({6, 33, 40});
  const at::Tensor x = base.transpose(0, 2);  // strided view
  ASSERT_FALSE(x.is_contiguous());
  const at::Tensor g = at::randn(x.sizes());
  auto [y_ref, dx_ref] = value_and_grad(x, false, g);
  auto [y, dx] = value_and_grad(x, true, g);
  EXPECT_EQ(y.sizes(), x.sizes());
  EXPECT_TRUE(at::allclose(y, y_ref, 2e-6, 1e-6));
  EXPECT_TRUE(at::allclose(dx, dx_ref, 2e-6, 1e-6));
}

TEST(GeluTanh, OtherDtypesUseAtenAndDoubleBackwardWorks) {
  const at::Tensor xd = at::randn({50}, at::kDouble);
  EXPECT_FALSE(runner::kernels::gelu_tanh_is_fused(xd));
  EXPECT_TRUE(at::equal(gelu_tanh(xd), at::gelu(xd, "tanh")));
  const at::Tensor xb = at::randn({50}).to(at::kBFloat16);
  EXPECT_TRUE(at::equal(gelu_tanh(xb), at::gelu(xb, "tanh")));
  // Second derivative through the fused path equals ATen's.
  at::manual_seed(3);
  const at::Tensor x0 = at::randn({64});
  auto second = [&](bool fused) {
    at::Tensor x = x0.clone().requires_grad_(true);
    at::Tensor y = fused ? gelu_tanh(x) : at::gelu(x, "tanh");
    at::Tensor g = torch::autograd::grad({y.sum()}, {x}, {}, /*retain_graph=*/true, /*create_graph=*/true)[0];
    return torch::autograd::grad({g.sum()}, {x})[0];
  };
  EXPECT_TRUE(at::allclose(second(true), second(false), 1e-5, 1e-6));
}

TEST(GeluTanh, NoGradAndInferenceCallTheKernelDirectly) {
  const at::Tensor x = at::randn({10}).requires_grad_(true);
  {
    c10::NoGradGuard no_grad;
    EXPECT_FALSE(gelu_tanh(x).requires_grad());
  }
  EXPECT_TRUE(gelu_tanh(x).requires_grad());
  EXPECT_TRUE(at::allclose(gelu_tanh(x.detach()), at::gelu(x.detach(), "tanh"), 2e-6, 1e-6));
}

