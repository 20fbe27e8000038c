// SwiGLU into a linear layer as one node (kernels/swiglu_linear.h) against ATen's op chain
// silu(gate) · up → linear (→ + scaling · (s·Aᵀ)·Bᵀ, models.lora's branch): values and every
// gradient, in fp32 and under CPU bf16 autocast, double backward, what the node keeps for
// backward (the product is not kept), and the inputs it leaves to the chain.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <ATen/autocast_mode.h>
#include <torch/csrc/autograd/autograd.h>

#include "runtime/device/autocast.h"
#include "runtime/kernels/swiglu_linear.h"
#include "tests/autograd_graph_util.h"
#include "tests/cpu_memory_counter.h"

using runner::kernels::swiglu_linear;
using runner::kernels::LinearWeights;

namespace {

struct Case {
  bool bias, lora, train_weight;
};

// Leaves: gate, up (B, T, I), weight (O, I), bias, A (r, I), B (O, r); the dtype of the weights
// may differ from the activations' (autocast casts them).
struct Leaves {
  at::Tensor gate, up, weight, bias, a, b;
  LinearWeights weights(double scaling) const { return {weight, bias, a, b, scaling}; }
  std::vector<at::Tensor> all() const {
    std::vector<at::Tensor> out;
    for (const at::Tensor& t : {gate, up, weight, bias, a, b})
      if (t.defined() && t.requires_grad()) out.push_back(t);
    return out;
  }
};

Leaves make(const Case& c, at::ScalarType act, at::ScalarType w, uint64_t seed) {
  at::manual_seed(seed);
  const int64_t batch = 2, t = 5, inter = 48, out = 24, r = 4;
  Leaves l;
  l.gate = (at::randn({batch, t, inter}) * 2).to(act).requires_grad_(true);
  l.up = at::randn({batch, t, inter}).to(act).requires_grad_(true);
  l.weight = (at::randn({out, inter}) / 7).to(w).requires_grad_(c.train_weight);
  if (c.bias) l.bias = at::randn({out}).to(w).requires_grad_(c.train_weight);
  if (c.lora) {
    l.a = (at::randn({r, inter}) / 7).to(w).requires_grad_(true);
    l.b = at::randn({out, r}).to(w).requires_grad_(true);
  }
  return l;
}

// ATen's chain, written out: what LlamaMLP ran before the node (and runs without it).
at::Tensor chain(const Leaves& l, double scaling) {
  const at::Tensor s = at::silu(l.gate) * l.up;
  at::Tensor y = at::linear(s, l.weight, l.bias);
  if (!l.a.defined()) return y;
  const at::Tensor down = at::linear(s, l.a);
  return at::addmm(y.reshape({-1, y.size(-1)}), down.reshape({-1, down.size(-1)}), l.b.t(), 1.0, scaling).view(y.sizes());
}

std::vector<at::Tensor> grads(const at::Tensor& y, const Leaves& l, const at::Tensor& dy) {
  return torch::autograd::grad({y}, l.all(), {dy});
}

std::string name(const Case& c) {
  return std::string(c.bias ? "bias" : "no bias") + (c.lora ? ", LoRA" : "") + (c.train_weight ? ", weight trained" : ", weight frozen");
}

const Case kCases[] = {{false, false, true}, {true, false, true}, {false, true, false}, {true, true, false}, {true, true, true}};

}  // namespace

TEST(SwigluLinear, ValuesAndGradientsEqualTheChainInFloat32) {
  for (const Case& c : kCases) {
    const Leaves l = make(c, at::kFloat, at::kFloat, 1);
    const double scaling = 2.0;
    ASSERT_TRUE(runner::kernels::swiglu_linear_is_one_node(l.gate, l.up, l.weights(scaling))) << name(c);
    const at::Tensor y = swiglu_linear(l.gate, l.up, l.weights(scaling)), ref = chain(l, scaling);
    EXPECT_TRUE(at::allclose(y, ref, 1e-6, 1e-6)) << name(c) << ": " << (y - ref).abs().max().item<float>();
    EXPECT_EQ(runner::testing::graph_count_containing(y, "SwigluLinear"), 1) << name(c);
    const at::Tensor dy = at::randn_like(ref);
    const auto got = grads(y, l, dy), want = grads(ref, l, dy);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_TRUE(at::allclose(got[i], want[i], 1e-5, 1e-6)) << name(c) << ", gradient " << i << ": " << (got[i] - want[i]).abs().max().item<float>();
  }
}

TEST(SwigluLinear, UnderBf16AutocastEqualsTheChainWithFloat32Weights) {
  // As in a LoRA step of a bf16 model: gate and up come out of bf16 GEMMs, the weights (here
  // fp32 master weights and adapters) are cast by autocast.
  for (const Case& c : kCases) {
    const Leaves l = make(c, at::kBFloat16, at::kFloat, 2);
    const double scaling = 0.5;
    runner::device::AutocastGuard autocast(true, at::kCPU, at::kBFloat16);
    ASSERT_TRUE(runner::kernels::swiglu_linear_is_one_node(l.gate, l.up, l.weights(scaling))) << name(c);
    const at::Tensor y = swiglu_linear(l.gate, l.up, l.weights(scaling)), ref = chain(l, scaling);
    ASSERT_EQ(y.scalar_type(), at::kBFloat16);
    EXPECT_TRUE(at::allclose(y.to(at::kFloat), ref.to(at::kFloat), 1e-2, 1e-2)) << name(c) << ": " << (y - ref).abs().max().item<float>();
    const at::Tensor dy = at::randn_like(ref);
    const auto got = grads(y, l, dy), want = grads(ref, l, dy);
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].scalar_type(), want[i].scalar_type()) << name(c) << ", gradient " << i;
      EXPECT_LT((got[i].to(at::kFloat) - want[i].to(at::kFloat)).abs().max().item<float>(), 2e-2 * want[i].abs().max().item<float>() + 1e-3)
          << name(c) << ", gradient " << i;
    }
  }
}

TEST(SwigluLinear, KeepsGateAndUpButNotTheirProductForBackward) {
  // The bytes held between forward and backward beside the inputs and the output: the chain
  // keeps s = silu(gate)·up (rows × intermediate), the node only the branch's rows × r.
  const int64_t rows = 256, inter = 512, out = 64, r = 8;
  at::manual_seed(3);
  const at::Tensor gate = at::randn({rows, inter}).requires_grad_(true), up = at::randn({rows, inter}).requires_grad_(true);
  const at::Tensor w = at::randn({out, inter}), a = at::randn({r, inter}).requires_grad_(true), b = at::randn({out, r}).requires_grad_(true);
  const Leaves l{gate, up, w, at::Tensor(), a, b};
  auto held = [&](bool fused) {
    runner::testing::CpuMemoryCounter counter;
    const at::Tensor y = fused ? swiglu_linear(gate, up, l.weights(1.0)) : chain(l, 1.0);
    return counter.live() - y.nbytes();
  };
  const int64_t product = rows * inter * 4, branch = rows * r * 4;
  const int64_t node = held(true), ops = held(false);
  EXPECT_LE(node, branch) << "the node keeps " << node << " bytes";
  EXPECT_GE(ops - node, product) << "the chain keeps " << ops << " bytes, the node " << node;
}

TEST(SwigluLinear, DoubleBackwardEqualsTheChains) {
  const Case c{true, true, true};
  const Leaves l = make(c, at::kDouble, at::kDouble, 4);
  auto second = [&](const at::Tensor& y) {
    const auto g = torch::autograd::grad({y}, l.all(), {at::ones_like(y)}, /*retain_graph=*/true, /*create_graph=*/true);
    at::Tensor sum = at::zeros({}, at::kDouble);
    for (const at::Tensor& t : g) sum = sum + (t * t).sum();
    return torch::autograd::grad({sum}, l.all(), {}, /*retain_graph=*/false, /*create_graph=*/false, /*allow_unused=*/true);
  };
  const auto got = second(swiglu_linear(l.gate, l.up, l.weights(1.5))), want = second(chain(l, 1.5));
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].defined(), want[i].defined()) << i;
    if (got[i].defined()) EXPECT_TRUE(at::allclose(got[i], want[i], 1e-10, 1e-12)) << "input " << i;
  }
}

TEST(SwigluLinear, MixedDtypesWithoutAutocastAreLeftToTheChain) {
  // A bf16 base with fp32 adapters outside autocast: peft casts the input to the adapters'
  // dtype, which the layer's own forward does; the node is for one dtype.
  const Leaves l = make({false, true, false}, at::kBFloat16, at::kBFloat16, 5);
  LinearWeights w = l.weights(1.0);
  EXPECT_TRUE(runner::kernels::swiglu_linear_is_one_node(l.gate, l.up, w));
  w.lora_a = w.lora_a.to(at::kFloat), w.lora_b = w.lora_b.to(at::kFloat);
  EXPECT_FALSE(runner::kernels::swiglu_linear_is_one_node(l.gate, l.up, w));
  EXPECT_FALSE(runner::kernels::swiglu_linear_is_one_node(l.gate, l.up.narrow(-1, 0, 8), l.weights(1.0)));
}

TEST(SwigluLinear, WithoutGradientsItKeepsNothing) {
  const Leaves l = make({true, true, true}, at::kFloat, at::kFloat, 6);
  at::NoGradGuard no_grad;
  runner::testing::CpuMemoryCounter counter;
  const at::Tensor y = swiglu_linear(l.gate, l.up, l.weights(1.0));
  EXPECT_EQ(counter.live(), static_cast<int64_t>(y.nbytes()));  // s and the branch's down are gone
  EXPECT_TRUE(at::allclose(y, chain(l, 1.0), 1e-6, 1e-6));
}

TEST(SwigluLinear, GateAndUpWithoutGradientsAreLeftToTheChain) {
  // SwiGLU then keeps nothing, and the chain only s; the node would keep gate and up.
  Leaves l = make({false, true, false}, at::kFloat, at::kFloat, 7);
  l.gate = l.gate.detach(), l.up = l.up.detach();
  EXPECT_FALSE(runner::kernels::swiglu_linear_is_one_node(l.gate, l.up, l.weights(1.0)));
  at::NoGradGuard no_grad;  // nothing kept either way: the node's one pass
  EXPECT_TRUE(runner::kernels::swiglu_linear_is_one_node(l.gate, l.up, l.weights(1.0)));
}

TEST(SwigluLinear, ItsOutputTakesInPlaceOps) {
  // A custom function's view output refuses in-place ops; the chain's output takes them.
  const Leaves l = make({true, true, true}, at::kFloat, at::kFloat, 8);
  at::Tensor y = swiglu_linear(l.gate, l.up, l.weights(1.0));
  const at::Tensor before = y.detach().clone();
  y.add_(1.0);
  y.sum().backward();
  EXPECT_TRUE(y.detach().equal(before + 1.0));
  EXPECT_TRUE(l.a.grad().defined());
}
