// The fused SwiGLU against ATen's at::silu(gate) * up: values, gradients, accuracy against
// float64, shapes that do not fill a vector register, strided inputs, the fallbacks (bit for
// bit) and double backward.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <torch/csrc/autograd/autograd.h>

#include "runtime/kernels/swiglu.h"

using runner::kernels::swiglu;

namespace {

struct Out {
  at::Tensor y, d_gate, d_up;
};

Out run(const at::Tensor& g0, const at::Tensor& u0, const at::Tensor& dy, bool fused) {
  at::Tensor g = g0.detach().clone().requires_grad_(true), u = u0.detach().clone().requires_grad_(true);
  at::Tensor y = fused ? swiglu(g, u) : at::silu(g) * u;
  y.backward(dy);
  return {y.detach(), g.grad(), u.grad()};
}

// Relative error, absolute near zeros of the exact value (d gate crosses zero at g ≈ −1.28,
// where any float formula cancels).
double max_rel(const at::Tensor& a, const at::Tensor& exact) {
  return ((a.to(at::kDouble) - exact).abs() / exact.abs().clamp_min(1.0)).max().item<double>();
}

}  // namespace

TEST(SwiGLU, ValuesAndGradientsEqualAten) {
  at::manual_seed(0);
  for (int64_t n : {1, 7, 15, 16, 17, 100003}) {  // vector remainders; more than one thread chunk
    const at::Tensor g = at::cat({at::randn({n}) * 4, at::linspace(-100, 100, 201)}), u = at::randn_like(g), dy = at::randn_like(g);
    ASSERT_TRUE(runner::kernels::swiglu_is_fused(g, u));
    const Out ref = run(g, u, dy, false), out = run(g, u, dy, true);
    EXPECT_TRUE(at::allclose(out.y, ref.y, 1e-6, 1e-7)) << "n=" << n << " " << (out.y - ref.y).abs().max().item<float>();
    EXPECT_TRUE(at::allclose(out.d_gate, ref.d_gate, 1e-6, 1e-7)) << "n=" << n << " " << (out.d_gate - ref.d_gate).abs().max().item<float>();
    EXPECT_TRUE(at::allclose(out.d_up, ref.d_up, 1e-6, 1e-7)) << "n=" << n << " " << (out.d_up - ref.d_up).abs().max().item<float>();
  }
}

TEST(SwiGLU, NoLessAccurateThanAtenAgainstFloat64) {
  at::manual_seed(1);
  const at::Tensor g = at::randn({1 << 16}) * 4, u = at::randn_like(g), dy = at::randn_like(g);
  const Out out = run(g, u, dy, true), aten = run(g, u, dy, false);
  const Out exact = run(g.to(at::kDouble), u.to(at::kDouble), dy.to(at::kDouble), false);
  for (auto [name, a, r, e] : {std::make_tuple("y", out.y, aten.y, exact.y), std::make_tuple("d gate", out.d_gate, aten.d_gate, exact.d_gate),
                               std::make_tuple("d up", out.d_up, aten.d_up, exact.d_up)})
    EXPECT_LT(max_rel(a, e), 1.5 * max_rel(r, e) + 1e-7) << name << ": ATen's " << max_rel(r, e) << ", fused " << max_rel(a, e);
}

TEST(SwiGLU, StridedBatchedInputsKeepTheirShape) {
  at::manual_seed(2);
  const at::Tensor g = at::randn({5, 40, 33}).transpose(0, 2), u = at::randn({33, 40, 5}), dy = at::randn({33, 40, 5});
  ASSERT_FALSE(g.is_contiguous());
  const Out ref = run(g, u, dy, false), out = run(g, u, dy, true);
  EXPECT_EQ(out.y.sizes(), g.sizes());
  EXPECT_TRUE(at::allclose(out.y, ref.y, 1e-6, 1e-7));
  EXPECT_TRUE(at::allclose(out.d_gate, ref.d_gate, 1e-6, 1e-7));
  EXPECT_TRUE(at::allclose(out.d_up, ref.d_up, 1e-6, 1e-7));
}

TEST(SwiGLU, OtherDtypesAndShapesGiveAtensNumbersBitForBit) {
  // bf16 (and double): ATen's own ops inside the one node, silu(gate) recomputed in backward.
  at::manual_seed(3);
  for (at::ScalarType t : {at::kBFloat16, at::kDouble}) {
    const at::Tensor g = at::randn({4, 300}).to(t), u = at::randn({4, 300}).to(t), dy = at::randn({4, 300}).to(t);
    EXPECT_FALSE(runner::kernels::swiglu_is_fused(g, u));
    const Out ref = run(g, u, dy, false), out = run(g, u, dy, true);
    EXPECT_TRUE(at::equal(out.y, ref.y));
    EXPECT_TRUE(at::equal(out.d_gate, ref.d_gate));
    EXPECT_TRUE(at::equal(out.d_up, ref.d_up));
  }
  const at::Tensor g = at::randn({4, 3}), u = at::randn({3});  // broadcasting: plain ATen
  EXPECT_TRUE(at::equal(swiglu(g, u), at::silu(g) * u));
}

TEST(SwiGLU, OnlyTheInputsThatNeedGradientsGetThem) {
  const at::Tensor g = at::randn({64}).requires_grad_(true), u = at::randn({64});
  swiglu(g, u).sum().backward();
  EXPECT_TRUE(g.grad().defined());
  {
    c10::NoGradGuard no_grad;
    EXPECT_FALSE(swiglu(g, u).requires_grad());
  }
}

TEST(SwiGLU, DoubleBackwardEqualsAtens) {
  at::manual_seed(4);
  const at::Tensor g0 = at::randn({64}), u0 = at::randn({64});
  auto second = [&](bool fused) {
    at::Tensor g = g0.clone().requires_grad_(true), u = u0.clone().requires_grad_(true);
    at::Tensor y = fused ? swiglu(g, u) : at::silu(g) * u;
    auto d = torch::autograd::grad({y.pow(2).sum()}, {g, u}, {}, /*retain_graph=*/true, /*create_graph=*/true);
    return torch::autograd::grad({d[0].sum() + d[1].sum()}, {g, u});
  };
  const auto a = second(true), b = second(false);
  EXPECT_TRUE(at::allclose(a[0], b[0], 1e-5, 1e-6));
  EXPECT_TRUE(at::allclose(a[1], b[1], 1e-5, 1e-6));
}
