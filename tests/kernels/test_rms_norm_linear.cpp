// A linear map of an RMSNorm's output that keeps the norm's input instead of its output
// (kernels/rms_norm_linear.h) against ATen's at::linear(rms_norm(x), A): values and the
// gradients of x, the norm's weight and A, in fp32 and under CPU bf16 autocast (bf16 and fp32
// models), double backward, and the bytes kept for backward.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <torch/csrc/autograd/autograd.h>

#include "runtime/device/autocast.h"
#include "runtime/kernels/rms_norm.h"
#include "runtime/kernels/rms_norm_linear.h"
#include "tests/autograd_graph_util.h"
#include "tests/cpu_memory_counter.h"

namespace k = runner::kernels;

namespace {

constexpr double kEps = 1e-5;

struct Leaves {
  at::Tensor x, norm_weight, a;
};

Leaves make(at::ScalarType model, at::ScalarType adapter, uint64_t seed) {
  at::manual_seed(seed);
  return {(at::randn({2, 7, 64}) * 3).to(model).requires_grad_(true), (at::rand({64}) + 0.5).to(model).requires_grad_(true),
          (at::randn({8, 64}) / 8).to(adapter).requires_grad_(true)};
}

at::Tensor node(const Leaves& l) {
  const at::Tensor n = k::rms_norm(l.x, l.norm_weight, kEps);
  return k::rms_norm_linear(n, l.x, l.norm_weight, kEps, l.a);
}
at::Tensor chain(const Leaves& l) { return at::linear(k::rms_norm(l.x, l.norm_weight, kEps), l.a); }

std::vector<at::Tensor> grads(const at::Tensor& y, const Leaves& l, const at::Tensor& dy) {
  return torch::autograd::grad({y}, {l.x, l.norm_weight, l.a}, {dy});
}

}  // namespace

TEST(RMSNormLinear, ValuesAndGradientsEqualTheChainInFloat32) {
  const Leaves l = make(at::kFloat, at::kFloat, 1);
  const at::Tensor y = node(l), ref = chain(l);
  EXPECT_EQ(runner::testing::graph_count_containing(y, "RMSNormLinear"), 1);
  EXPECT_TRUE(y.equal(ref));
  const at::Tensor dy = at::randn_like(ref);
  const auto got = grads(y, l, dy), want = grads(ref, l, dy);
  for (size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(at::allclose(got[i], want[i], 1e-6, 1e-7)) << "gradient " << i;
}

TEST(RMSNormLinear, UnderBf16AutocastEqualsTheChain) {
  // A bf16 model with fp32 adapters (the norm writes bf16), and an fp32 model (the norm writes
  // fp32, which the linear map casts to bf16 as autocast's linear does).
  for (at::ScalarType model : {at::kBFloat16, at::kFloat}) {
    const Leaves l = make(model, at::kFloat, 2);
    runner::device::AutocastGuard autocast(true, at::kCPU, at::kBFloat16);
    ASSERT_TRUE(k::rms_norm_linear_is_one_node(k::rms_norm(l.x, l.norm_weight, kEps), l.x, l.norm_weight, l.a)) << model;
    const at::Tensor y = node(l), ref = chain(l);
    ASSERT_EQ(y.scalar_type(), at::kBFloat16);
    EXPECT_TRUE(y.equal(ref)) << model;
    const at::Tensor dy = at::randn_like(ref);
    const auto got = grads(y, l, dy), want = grads(ref, l, dy);
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_EQ(got[i].scalar_type(), want[i].scalar_type()) << model << " gradient " << i;
      EXPECT_TRUE(at::allclose(got[i].to(at::kFloat), want[i].to(at::kFloat), 1e-2, 1e-3)) << model << " gradient " << i;
    }
  }
}

TEST(RMSNormLinear, KeepsNotTheNormsOutputForBackward) {
  // Bytes held beside the inputs and the output: the chain's linear keeps n (rows × hidden),
  // the node nothing the norm's own node does not keep (x, and its rstd per row).
  at::manual_seed(3);
  const at::Tensor x = at::randn({512, 256}).requires_grad_(true), w = at::rand({256}) + 0.5, a = at::randn({16, 256}).requires_grad_(true);
  auto held = [&](bool fused) {
    runner::testing::CpuMemoryCounter counter;
    const Leaves l{x, w, a};
    const at::Tensor y = fused ? node(l) : chain(l);
    return counter.live() - static_cast<int64_t>(y.nbytes());
  };
  const int64_t rstd = 512 * 4, normed = 512 * 256 * 4;
  const int64_t fused = held(true), plain = held(false);
  EXPECT_LE(fused, rstd) << "the node keeps " << fused << " bytes";
  EXPECT_GE(plain - fused, normed) << "the chain keeps " << plain << " bytes, the node " << fused;
}

TEST(RMSNormLinear, DoubleBackwardEqualsTheChains) {
  const Leaves l = make(at::kDouble, at::kDouble, 4);
  auto second = [&](const at::Tensor& y) {
    const auto g = torch::autograd::grad({y}, {l.x, l.norm_weight, l.a}, {at::ones_like(y)}, /*retain_graph=*/true, /*create_graph=*/true);
    const at::Tensor sum = (g[0] * g[0]).sum() + (g[1] * g[1]).sum() + (g[2] * g[2]).sum();
    return torch::autograd::grad({sum}, {l.x, l.norm_weight, l.a});
  };
  const auto got = second(node(l)), want = second(chain(l));
  for (size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(at::allclose(got[i], want[i], 1e-10, 1e-12)) << "input " << i;
}

TEST(RMSNormLinear, DoubleBackwardWhenOnlyTheMapWantsAGradient) {
  // A LoRA model's first layer: its input comes from a frozen embedding and the norm is frozen,
  // so n needs no gradient; A's second derivative must still be the chain's.
  Leaves l = make(at::kDouble, at::kDouble, 7);
  l.x = l.x.detach(), l.norm_weight = l.norm_weight.detach();
  auto second = [&](const at::Tensor& y) {
    const auto g = torch::autograd::grad({y}, {l.a}, {y * y}, /*retain_graph=*/true, /*create_graph=*/true);
    return torch::autograd::grad({(g[0] * g[0]).sum()}, {l.a})[0];
  };
  EXPECT_TRUE(at::allclose(second(node(l)), second(chain(l)), 1e-10, 1e-12));
}

TEST(RMSNormLinear, OtherInputsAreLeftToTheLinearMap) {
  const Leaves l = make(at::kBFloat16, at::kFloat, 5);  // no autocast: at::linear would refuse the mix
  const at::Tensor n = k::rms_norm(l.x, l.norm_weight, kEps);
  EXPECT_FALSE(k::rms_norm_linear_is_one_node(n, l.x, l.norm_weight, l.a));
  EXPECT_TRUE(k::rms_norm_linear_is_one_node(n, l.x, l.norm_weight, l.a.to(at::kBFloat16)));
  EXPECT_FALSE(k::rms_norm_linear_is_one_node(n.narrow(-1, 0, 8), l.x, l.norm_weight, l.a.to(at::kBFloat16)));  // not x's norm
}

TEST(RMSNormLinear, ItsOutputTakesInPlaceOps) {
  const Leaves l = make(at::kFloat, at::kFloat, 6);
  at::Tensor y = node(l);
  y.mul_(2.0);
  y.sum().backward();
  EXPECT_TRUE(l.a.grad().defined() && l.x.grad().defined());
}
