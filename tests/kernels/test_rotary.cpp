// The fused rotary embedding against HF's chain of ATen ops (rotary_reference): bit for bit
// forward and backward on CPU float32, on the transposed-projection layout Llama gives it and
// on odd shapes; the output keeps the input's layout; the fallbacks and double backward.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <torch/csrc/autograd/autograd.h>

#include "runtime/kernels/rotary.h"

using runner::kernels::rotary;
using runner::kernels::rotary_reference;

namespace {

// q as Llama makes it: (B, T, H, D) memory seen as (B, H, T, D); cos/sin as rope_cos_sin.
struct Case {
  at::Tensor x, cos, sin;
};
Case make(int64_t b, int64_t h, int64_t t, int64_t d, at::ScalarType dtype = at::kFloat) {
  const at::Tensor x = at::randn({b, t, h, d}).transpose(1, 2).to(dtype);
  const at::Tensor freqs = at::rand({b, t, d / 2}) * 100;
  const at::Tensor emb = at::cat({freqs, freqs}, -1);
  return {x, emb.cos().to(dtype), emb.sin().to(dtype)};
}

std::pair<at::Tensor, at::Tensor> run(const Case& c, const at::Tensor& dy, bool fused) {
  at::Tensor x = c.x.detach().clone().requires_grad_(true);
  at::Tensor y = fused ? rotary(x, c.cos, c.sin) : rotary_reference(x, c.cos, c.sin);
  y.backward(dy);
  return {y.detach(), x.grad()};
}

}  // namespace

TEST(Rotary, EqualsHfsChainBitForBit) {
  at::manual_seed(0);
  for (auto [b, h, t, d] : std::vector<std::array<int64_t, 4>>{{1, 1, 1, 2}, {2, 3, 5, 6}, {2, 4, 17, 64}, {1, 2, 300, 34}}) {
    const Case c = make(b, h, t, d);
    ASSERT_TRUE(runner::kernels::rotary_is_fused(c.x, c.cos, c.sin));
    const at::Tensor dy = at::randn(c.x.sizes());
    auto [y_ref, dx_ref] = run(c, dy, false);
    auto [y, dx] = run(c, dy, true);
    EXPECT_TRUE(at::equal(y, y_ref)) << b << "x" << h << "x" << t << "x" << d << " " << (y - y_ref).abs().max().item<float>();
    EXPECT_TRUE(at::equal(dx, dx_ref)) << b << "x" << h << "x" << t << "x" << d << " " << (dx - dx_ref).abs().max().item<float>();
    EXPECT_EQ(y.strides(), y_ref.strides());  // what attention receives is laid out as before
  }
}

TEST(Rotary, ContiguousAndStridedGradientsToo) {
  at::manual_seed(1);
  const Case c = make(2, 3, 7, 8);
  const at::Tensor contiguous = c.x.contiguous();
  EXPECT_TRUE(at::equal(rotary(contiguous, c.cos, c.sin), rotary_reference(contiguous, c.cos, c.sin)));
  const at::Tensor dy = at::randn({2, 3, 8, 7}).transpose(2, 3);  // D not contiguous: backward falls back
  auto [y_ref, dx_ref] = run(c, dy, false);
  auto [y, dx] = run(c, dy, true);
  EXPECT_TRUE(at::allclose(dx, dx_ref, 1e-6, 1e-7));
}

TEST(Rotary, OtherDtypesAndGradientsForCosUseHfsChain) {
  at::manual_seed(2);
  const Case c = make(1, 2, 4, 8, at::kBFloat16);
  EXPECT_FALSE(runner::kernels::rotary_is_fused(c.x, c.cos, c.sin));
  EXPECT_TRUE(at::equal(rotary(c.x, c.cos, c.sin), rotary_reference(c.x, c.cos, c.sin)));
  const Case f = make(1, 2, 4, 8);
  // HF under autocast: bf16 q, fp32 cos/sin: an fp32 result, as the chain gives.
  const at::Tensor q = f.x.to(at::kBFloat16);
  EXPECT_EQ(rotary(q, f.cos, f.sin).scalar_type(), at::kFloat);
  EXPECT_TRUE(at::equal(rotary(q, f.cos, f.sin), rotary_reference(q, f.cos, f.sin)));
  const at::Tensor cos = f.cos.clone().requires_grad_(true);
  EXPECT_FALSE(runner::kernels::rotary_is_fused(f.x, cos, f.sin));
}

TEST(Rotary, DoubleBackwardEqualsHfsChain) {
  at::manual_seed(3);
  const Case c = make(1, 2, 3, 4);
  auto second = [&](bool fused) {
    at::Tensor x = c.x.detach().clone().requires_grad_(true);
    at::Tensor y = fused ? rotary(x, c.cos, c.sin) : rotary_reference(x, c.cos, c.sin);
    at::Tensor g = torch::autograd::grad({y.pow(2).sum()}, {x}, {}, /*retain_graph=*/true, /*create_graph=*/true)[0];
    return torch::autograd::grad({g.pow(2).sum()}, {x})[0];
  };
  EXPECT_TRUE(at::allclose(second(true), second(false), 1e-5, 1e-6));
}
