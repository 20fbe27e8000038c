// The fused RMSNorm against HF's LlamaRMSNorm as ATen ops (rms_norm_reference): values and
// both gradients, accuracy against float64, mixed dtypes (autocast's fp32 weight with bf16
// rows), odd widths, the same numbers on any thread count, and double backward.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/csrc/autograd/autograd.h>

#include "runtime/kernels/rms_norm.h"

using runner::kernels::rms_norm;
using runner::kernels::rms_norm_reference;

namespace {

struct Out {
  at::Tensor y, dx, dw;
};

Out run(const at::Tensor& x0, const at::Tensor& w0, const at::Tensor& dy, bool fused, double eps = 1e-6) {
  at::Tensor x = x0.detach().clone().requires_grad_(true), w = w0.detach().clone().requires_grad_(true);
  at::Tensor y = fused ? rms_norm(x, w, eps) : rms_norm_reference(x, w, eps);
  y.backward(dy);
  return {y.detach(), x.grad(), w.grad()};
}

double max_rel(const at::Tensor& a, const at::Tensor& exact) {
  return ((a.to(at::kDouble) - exact).abs() / exact.abs().clamp_min(1e-2)).max().item<double>();
}

}  // namespace

TEST(RMSNorm, ValuesAndGradientsEqualHfsChain) {
  at::manual_seed(0);
  for (auto [rows, n] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {3, 7}, {5, 16}, {9, 33}, {2000, 64}, {70, 2048}}) {
    const at::Tensor x = at::randn({rows, n}) * 3, w = at::randn({n}), dy = at::randn({rows, n});
    ASSERT_TRUE(runner::kernels::rms_norm_is_fused(x, w));
    const Out ref = run(x, w, dy, false), out = run(x, w, dy, true);
    EXPECT_TRUE(at::allclose(out.y, ref.y, 1e-5, 1e-6)) << rows << "x" << n << " " << (out.y - ref.y).abs().max().item<float>();
    EXPECT_TRUE(at::allclose(out.dx, ref.dx, 1e-4, 1e-5)) << rows << "x" << n << " " << (out.dx - ref.dx).abs().max().item<float>();
    EXPECT_TRUE(at::allclose(out.dw, ref.dw, 1e-4, 1e-4)) << rows << "x" << n << " " << (out.dw - ref.dw).abs().max().item<float>();
  }
}

TEST(RMSNorm, NoLessAccurateThanHfsChainAgainstFloat64) {
  at::manual_seed(1);
  const at::Tensor x = at::randn({512, 1024}) * 5 + 1, w = at::rand({1024}) + 0.5, dy = at::randn({512, 1024});
  const Out out = run(x, w, dy, true), ref = run(x, w, dy, false);
  // HF's chain computes in float32 whatever the input: the exact values are its formula in float64.
  const at::Tensor x64 = x.to(at::kDouble).requires_grad_(true), w64 = w.to(at::kDouble).requires_grad_(true);
  const at::Tensor y64 = w64 * (x64 * at::rsqrt(x64.pow(2).mean(-1, true) + 1e-6));
  y64.backward(dy.to(at::kDouble));
  const Out exact{y64.detach(), x64.grad(), w64.grad()};
  for (auto [name, a, r, e] : {std::make_tuple("y", out.y, ref.y, exact.y), std::make_tuple("dx", out.dx, ref.dx, exact.dx),
                               std::make_tuple("dw", out.dw, ref.dw, exact.dw)})
    EXPECT_LT(max_rel(a, e), 2 * max_rel(r, e) + 1e-6) << name << ": HF's chain " << max_rel(r, e) << ", fused " << max_rel(a, e);
}

TEST(RMSNorm, TheSameNumbersOnAnyThreadCount) {
  at::manual_seed(2);
  const at::Tensor x = at::randn({3000, 96}), w = at::randn({96}), dy = at::randn({3000, 96});
  const int before = at::get_num_threads();
  at::set_num_threads(1);
  const Out one = run(x, w, dy, true);
  at::set_num_threads(std::max(2, before));
  const Out many = run(x, w, dy, true);
  at::set_num_threads(before);
  EXPECT_TRUE(at::equal(one.y, many.y));
  EXPECT_TRUE(at::equal(one.dx, many.dx));
  EXPECT_TRUE(at::equal(one.dw, many.dw));
}

TEST(RMSNorm, MixedAndLowPrecisionDtypesKeepHfsCastsAndOutputDtype) {
  at::manual_seed(3);
  const at::Tensor x = (at::randn({6, 40}) * 2).to(at::kBFloat16), w32 = at::randn({40}), dy = at::randn({6, 40});
  EXPECT_FALSE(runner::kernels::rms_norm_is_fused(x, w32));
  // Autocast's case: bf16 rows, fp32 weight: an fp32 output; forward is HF's ops, bit for bit.
  const Out ref = run(x, w32, dy, false), out = run(x, w32, dy, true);
  EXPECT_EQ(out.y.scalar_type(), at::kFloat);
  EXPECT_TRUE(at::equal(out.y, ref.y));
  EXPECT_EQ(out.dx.scalar_type(), at::kBFloat16);
  EXPECT_EQ(out.dw.scalar_type(), at::kFloat);
  EXPECT_TRUE(at::allclose(out.dx.to(at::kFloat), ref.dx.to(at::kFloat), 1e-2, 1e-2));
  EXPECT_TRUE(at::allclose(out.dw, ref.dw, 1e-5, 1e-5));
  // All bf16 (a bf16 model): bf16 out, gradients within bf16 rounding.
  const Out ref16 = run(x, w32.to(at::kBFloat16), dy.to(at::kBFloat16), false), out16 = run(x, w32.to(at::kBFloat16), dy.to(at::kBFloat16), true);
  EXPECT_TRUE(at::equal(out16.y, ref16.y));
  EXPECT_TRUE(at::allclose(out16.dx.to(at::kFloat), ref16.dx.to(at::kFloat), 2e-2, 2e-2));
  EXPECT_TRUE(at::allclose(out16.dw.to(at::kFloat), ref16.dw.to(at::kFloat), 2e-2, 2e-2));
}

TEST(RMSNorm, BatchedShapesStridedInputsAndOneSidedGradients) {
  at::manual_seed(4);
  const at::Tensor x = at::randn({4, 20, 48}).transpose(0, 1), w = at::randn({48}), dy = at::randn({20, 4, 48});
  ASSERT_FALSE(x.is_contiguous());
  const Out ref = run(x, w, dy, false), out = run(x, w, dy, true);
  EXPECT_EQ(out.y.sizes(), x.sizes());
  EXPECT_TRUE(at::allclose(out.y, ref.y, 1e-5, 1e-6));
  EXPECT_TRUE(at::allclose(out.dx, ref.dx, 1e-4, 1e-5));
  EXPECT_TRUE(at::allclose(out.dw, ref.dw, 1e-4, 1e-4));
  at::Tensor frozen_w = w.clone(), xs = x.clone().requires_grad_(true);
  rms_norm(xs, frozen_w, 1e-6).backward(dy);
  EXPECT_TRUE(at::allclose(xs.grad(), ref.dx, 1e-4, 1e-5));
  EXPECT_THROW(rms_norm(x, at::ones({47}), 1e-6), c10::Error);
}

TEST(RMSNorm, DoubleBackwardEqualsHfsChain) {
  at::manual_seed(5);
  const at::Tensor x0 = at::randn({3, 8}), w0 = at::randn({8});
  auto second = [&](bool fused) {
    at::Tensor x = x0.clone().requires_grad_(true), w = w0.clone().requires_grad_(true);
    at::Tensor y = fused ? rms_norm(x, w, 1e-6) : rms_norm_reference(x, w, 1e-6);
    auto d = torch::autograd::grad({y.pow(2).sum()}, {x, w}, {}, /*retain_graph=*/true, /*create_graph=*/true);
    return torch::autograd::grad({d[0].pow(2).sum() + d[1].sum()}, {x, w});
  };
  const auto a = second(true), b = second(false);
  EXPECT_TRUE(at::allclose(a[0], b[0], 1e-4, 1e-5));
  EXPECT_TRUE(at::allclose(a[1], b[1], 1e-4, 1e-5));
}
