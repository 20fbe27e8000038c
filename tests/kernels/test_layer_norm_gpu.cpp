// LayerNorm written in autocast's low dtype (runtime/kernels/layer_norm.h, cuda/layer_norm.cu)
// against the chain it replaces on the same device (label gpu: skipped, visibly, without one):
// ATen's layer_norm of the upcast inputs in fp32, cast to bf16/fp16. x in fp32, bf16 and fp16,
// weight and bias in fp32 or x's dtype, each present or not; row widths around the block's 256
// threads and more rows than backward's 512 blocks; values and the gradients of x, weight and
// bias, and a second derivative (through the reference). And GPT under bf16 autocast: its
// three kinds of norm take the kernel, and no cast of their output is left in the graph.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <torch/csrc/autograd/autograd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "runtime/device/autocast.h"
#include "runtime/kernels/layer_norm.h"
#include "runtime/models/builtin.h"
#include "tests/autograd_graph_util.h"
#include "tests/gpu_test_util.h"
#include "tests/gpu_timing.h"

namespace k = runner::kernels;
using runner::testing::graph_count;
using runner::testing::graph_count_containing;

namespace {

const at::TensorOptions kCuda = at::TensorOptions().device(at::kCUDA);

// max |a − b| / max(max |b|, 1): both rounded from float results computed in another order.
double rel(const at::Tensor& a, const at::Tensor& b) {
  return (a.to(at::kDouble) - b.to(at::kDouble)).abs().max().item<double>() / std::max(b.abs().max().item<double>(), 1.0);
}

double eps_of(at::ScalarType t) { return t == at::kBFloat16 ? 7.8125e-3 : t == at::kHalf ? 9.765625e-4 : 1.2e-7; }

}  // namespace

TEST(LayerNormGpu, EqualsAutocastsChainWithItsGradients) {
  REQUIRE_GPU();
  at::manual_seed(0);
  struct Shape {
    int64_t rows, cols;
  };
  for (const at::ScalarType tx : {at::kFloat, at::kBFloat16, at::kHalf})
    for (const bool w_like_x : {false, true})
      for (const at::ScalarType out : {at::kBFloat16, at::kHalf})
        for (const int affine : {0, 1, 2})  // none, weight only, weight and bias
          for (const Shape s : {Shape{3, 1}, Shape{5, 7}, Shape{1100, 768}, Shape{33, 4099}}) {
            const at::ScalarType tw = w_like_x ? tx : at::kFloat;
            const std::string what = std::string(c10::toString(tx)) + " x, " + c10::toString(tw) + " w, " + c10::toString(out) + " out, affine " +
                                     std::to_string(affine) + ", " + std::to_string(s.rows) + "x" + std::to_string(s.cols);
            const at::Tensor x = (at::randn({s.rows, s.cols}, kCuda) * 3 + 1).to(tx).requires_grad_(true);
            const at::Tensor w = affine >= 1 ? (at::randn({s.cols}, kCuda) + 1).to(tw).requires_grad_(true) : at::Tensor();
            const at::Tensor b = affine == 2 ? at::randn({s.cols}, kCuda).to(tw).requires_grad_(true) : at::Tensor();
            ASSERT_TRUE(k::layer_norm_to_takes_kernel(x, w, b, out)) << what;
            const at::Tensor y = k::layer_norm_to(x, w, b, 1e-5, out), ref = k::layer_norm_to_reference(x, w, b, 1e-5, out);
            ASSERT_EQ(y.scalar_type(), out) << what;
            // The same float value to a float ulp or so, then one rounding to `out`: a value at
            // a rounding boundary may land one `out` ulp away.
            EXPECT_LE(rel(y, ref), 1.01 * eps_of(out)) << what;
            std::vector<at::Tensor> wrt{x};
            if (w.defined()) wrt.push_back(w);
            if (b.defined()) wrt.push_back(b);
            const at::Tensor dy = at::randn({s.rows, s.cols}, kCuda).to(out);
            const auto g = torch::autograd::grad({y}, wrt, {dy}), g_ref = torch::autograd::grad({ref}, wrt, {dy});
            for (size_t i = 0; i < wrt.size(); ++i) {
              ASSERT_EQ(g[i].scalar_type(), wrt[i].scalar_type()) << what << ", gradient " << i;
              // Float sums in another order, then one rounding to the input's dtype.
              EXPECT_LE(rel(g[i], g_ref[i]), 2e-5 + 1.01 * eps_of(wrt[i].scalar_type())) << what << ", gradient " << i;
            }
          }
}

TEST(LayerNormGpu, ManyRowsAndNoGradients) {
  REQUIRE_GPU();
  at::manual_seed(1);
  // 70000 rows: past backward's 512 blocks (each sums many rows into its partial row).
  const at::Tensor x = at::randn({70000, 64}, kCuda).requires_grad_(true);
  const at::Tensor w = at::randn({64}, kCuda).requires_grad_(true), b = at::randn({64}, kCuda).requires_grad_(true);
  const at::Tensor y = k::layer_norm_to(x, w, b, 1e-5, at::kBFloat16), ref = k::layer_norm_to_reference(x, w, b, 1e-5, at::kBFloat16);
  EXPECT_LE(rel(y, ref), 1.01 * eps_of(at::kBFloat16));
  const at::Tensor dy = at::randn({70000, 64}, kCuda).to(at::kBFloat16);
  const auto g = torch::autograd::grad({y}, {x, w, b}, {dy}), g_ref = torch::autograd::grad({ref}, {x, w, b}, {dy});
  for (size_t i = 0; i < 3; ++i) EXPECT_LE(rel(g[i], g_ref[i]), 1e-4) << "gradient " << i;
  at::NoGradGuard no_grad;
  EXPECT_TRUE(at::equal(k::layer_norm_to(x, w, b, 1e-5, at::kBFloat16), y.detach()));
}

TEST(LayerNormGpu, DoubleBackwardGoesThroughTheReference) {
  REQUIRE_GPU();
  at::manual_seed(4);
  const at::Tensor x = at::randn({6, 40}, kCuda).requires_grad_(true);
  const at::Tensor w = (at::randn({40}, kCuda) + 1).requires_grad_(true), b = at::randn({40}, kCuda).requires_grad_(true);
  const at::Tensor dy = at::randn({6, 40}, kCuda).to(at::kBFloat16);
  auto second = [&](bool fused) {
    const at::Tensor y = fused ? k::layer_norm_to(x, w, b, 1e-5, at::kBFloat16) : k::layer_norm_to_reference(x, w, b, 1e-5, at::kBFloat16);
    const at::Tensor dx = torch::autograd::grad({y}, {x}, {dy}, /*retain_graph=*/true, /*create_graph=*/true)[0];
    return torch::autograd::grad({dx.pow(2).sum()}, {w})[0];  // d/dw of a function of d x
  };
  EXPECT_LE(rel(second(true), second(false)), 1e-5);
}

TEST(LayerNormGpu, GptUnderAutocastWritesItsNormsInBf16) {
  REQUIRE_GPU();
  at::manual_seed(2);
  runner::models::GPTConfig c;
  c.vocab_size = 64;
  c.block_size = 16;
  c.n_layer = 2;
  c.n_head = 2;
  c.n_embd = 32;
  const runner::models::ModulePtr model = runner::models::make_gpt(c);
  model->to(at::Device(at::kCUDA));
  const at::Tensor ids = at::randint(64, {2, 16}, kCuda.dtype(at::kLong));
  at::Tensor logits;
  {
    const runner::device::AutocastGuard autocast(true, at::kCUDA, at::kBFloat16);
    logits = model->forward_batch({{"input_ids", ids}}).at("logits");
  }
  EXPECT_EQ(graph_count_containing(logits, "LayerNormToFn"), 2 * 2 + 1);  // ln_1 and ln_2 per block, ln_f
  EXPECT_EQ(graph_count(logits, "NativeLayerNormBackward0"), 0);
  // The casts left are autocast's of the matmuls' weights and biases (c_attn, attn.c_proj, c_fc,
  // mlp.c_proj: 8 per block) and of the tied head's weight: none of a norm's output (ATen's
  // fp32 norm would add 5).
  EXPECT_EQ(graph_count(logits, "ToCopyBackward0"), 8 * 2 + 1);
  logits.to(at::kFloat).pow(2).mean().backward();
  for (const auto& [name, p] : model->named_parameters()) {
    ASSERT_TRUE(p.grad().defined()) << name;
    EXPECT_TRUE(p.grad().isfinite().all().item<bool>()) << name;
    EXPECT_GT(p.grad().abs().sum().item<double>(), 0.0) << name;
  }
}

// Not a timed test (nothing is asserted about speed): the GPU check's log shows what the kernel
// pays against ATen's fp32 norm and the cast, forward + backward at GPT-2's shape.
TEST(LayerNormGpu, PrintsItsTimeAgainstAtensNormAndCastAtGpt2sShape) {
  REQUIRE_GPU();
  at::manual_seed(3);
  const at::Tensor x = at::randn({8192, 768}, kCuda).requires_grad_(true);
  const at::Tensor w = (at::randn({768}, kCuda) + 1).requires_grad_(true), b = at::randn({768}, kCuda).requires_grad_(true);
  const at::Tensor dy = at::randn({8192, 768}, kCuda).to(at::kBFloat16);
  auto time_ms = [&](bool fused) {
    return runner::testing::gpu_ms_per_call([&] {
      const at::Tensor y = fused ? k::layer_norm_to(x, w, b, 1e-5, at::kBFloat16) : k::layer_norm_to_reference(x, w, b, 1e-5, at::kBFloat16);
      torch::autograd::grad({y}, {x, w, b}, {dy});
    }, 20);
  };
  const double fused = time_ms(true), aten = time_ms(false);
  std::printf("LayerNorm 8192 x 768, fp32 in, bf16 out, forward + backward: runner's kernel %.3f ms, ATen's norm and cast %.3f ms (%.2fx)\n",
              fused, aten, aten / fused);
  EXPECT_GT(fused, 0.0);
}
