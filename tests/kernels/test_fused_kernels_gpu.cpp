// runner's CUDA kernels (runtime/kernels/cuda) against the plain ATen chains they replace, on
// the same device (label gpu: skipped, visibly, without one): SwiGLU, RMSNorm and rotary
// embeddings in float32, bfloat16 and float16 and autocast's mixed dtypes, forward and
// backward; fp32 CUDA equal to the CPU loops; and the activation memory the single nodes save;
// SwiGLU into a LoRA-adapted down projection as one node, and a branch's A on a norm's output
// that keeps the norm's input, under bf16 autocast.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <torch/csrc/autograd/autograd.h>

#include <functional>
#include <optional>

#include "runtime/device/gpu_info.h"
#include "runtime/kernels/rms_norm.h"
#include "runtime/kernels/rms_norm_linear.h"
#include "runtime/kernels/rotary.h"
#include "runtime/device/autocast.h"
#include "runtime/kernels/swiglu.h"
#include "runtime/kernels/swiglu_linear.h"
#include "tests/autograd_graph_util.h"
#include "tests/gpu_test_util.h"

namespace k = runner::kernels;

namespace {

const at::TensorOptions kCuda = at::TensorOptions().device(at::kCUDA);

double eps_of(at::ScalarType t) { return t == at::kBFloat16 ? 7.8125e-3 : t == at::kHalf ? 9.765625e-4 : 1.2e-7; }

// |a − b| ≤ ulps · eps · max(|b|, 1) elementwise, eps that of b's dtype or of `rounded_in`
// (a value rounded to a narrower dtype on the way, as RMSNorm's n = (x·r).to(x.dtype)).
::testing::AssertionResult close(const at::Tensor& a, const at::Tensor& b, double ulps = 1,
                                 std::optional<at::ScalarType> rounded_in = std::nullopt) {
  if (a.scalar_type() != b.scalar_type() || a.sizes() != b.sizes())
    return ::testing::AssertionFailure() << "dtype/shape differ: " << a.scalar_type() << a.sizes() << " vs " << b.scalar_type() << b.sizes();
  const double eps = eps_of(rounded_in.value_or(b.scalar_type()));
  const at::Tensor a64 = a.to(at::kDouble).cpu(), b64 = b.to(at::kDouble).cpu();
  const at::Tensor excess = (a64 - b64).abs() - ulps * eps * b64.abs().clamp_min(1.0);
  const double worst = excess.max().item<double>();
  const int64_t equal = a64.eq(b64).sum().item<int64_t>();
  if (worst <= 0) return ::testing::AssertionSuccess() << equal << "/" << b.numel() << " equal";
  return ::testing::AssertionFailure() << "beyond " << ulps << " ulp by " << worst << " (" << equal << "/" << b.numel() << " equal)";
}

std::vector<at::Tensor> grads_of(const at::Tensor& y, const std::vector<at::Tensor>& inputs, const at::Tensor& dy) {
  // The graph is kept: some cases take a second gradient of the same output with another dy.
  return torch::autograd::grad({y}, inputs, {dy}, /*retain_graph=*/true);
}

}  // namespace

TEST(FusedKernelsGpu, SwiGLUEqualsSiluTimesUp) {
  REQUIRE_GPU();
  at::manual_seed(0);
  for (at::ScalarType t : {at::kFloat, at::kBFloat16, at::kHalf}) {
    // The largest is past one grid of 65536 × 256 threads: the grid-stride loop's second pass.
    for (int64_t n : {int64_t{1}, int64_t{1000}, int64_t{3 * 1024 * 1024 + 7}, int64_t{17 * 1024 * 1024 + 3}}) {
      if (n > 4 * 1024 * 1024 && t != at::kBFloat16) continue;
      const at::Tensor g = (at::randn({n}, kCuda) * 4).to(t).requires_grad_(true), u = at::randn({n}, kCuda).to(t).requires_grad_(true);
      const at::Tensor dy = at::randn({n}, kCuda).to(t);
      const at::Tensor y = k::swiglu(g, u), y_ref = at::silu(g) * u;
      const auto d = grads_of(y, {g, u}, dy), d_ref = grads_of(y_ref, {g, u}, dy);
      EXPECT_TRUE(close(y, y_ref)) << t << " n=" << n;
      EXPECT_TRUE(close(d[0], d_ref[0], 2)) << t << " n=" << n << " d gate";
      EXPECT_TRUE(close(d[1], d_ref[1])) << t << " n=" << n << " d up";
    }
  }
}

TEST(FusedKernelsGpu, RMSNormEqualsHfsChain) {
  REQUIRE_GPU();
  at::manual_seed(1);
  struct Types { at::ScalarType x, w; };
  for (Types t : {Types{at::kFloat, at::kFloat}, Types{at::kBFloat16, at::kBFloat16}, Types{at::kBFloat16, at::kFloat}, Types{at::kHalf, at::kHalf}}) {
    for (auto [rows, cols] : std::vector<std::pair<int64_t, int64_t>>{{1, 33}, {7, 4096}, {3000, 2048}, {64, 8192}}) {
      const at::Tensor x = (at::randn({rows, cols}, kCuda) * 3).to(t.x).requires_grad_(true);
      const at::Tensor w = (at::rand({cols}, kCuda) + 0.5).to(t.w).requires_grad_(true);
      const at::Tensor y = k::rms_norm(x, w, 1e-6), y_ref = k::rms_norm_reference(x, w, 1e-6);
      const at::Tensor dy = at::randn(y_ref.sizes(), kCuda).to(y_ref.scalar_type());
      const auto d = grads_of(y, {x, w}, dy), d_ref = grads_of(y_ref, {x, w}, dy);
      const std::string what = std::string(c10::toString(t.x)) + "/" + c10::toString(t.w) + " " + std::to_string(rows) + "x" + std::to_string(cols);
      // r differs from ATen's by an ulp or two (the row's sum in another order): fp32 moves by a
      // few float ulps; a bf16 x's n = (x·r).to(bf16) may round to the next bf16 value.
      EXPECT_TRUE(close(y, y_ref, t.x == at::kFloat ? 8 : 2, t.x)) << what;
      EXPECT_TRUE(close(d[0], d_ref[0], t.x == at::kFloat ? 64 : 2)) << what << " d x";
      const double e = 2 * eps_of(t.w == at::kFloat && t.x == at::kFloat ? at::kFloat : at::kBFloat16);
      EXPECT_TRUE(at::allclose(d[1].to(at::kDouble), d_ref[1].to(at::kDouble), std::max(e, 1e-4), std::max(e, 1e-4) * d_ref[1].abs().max().item<double>()))
          << what << " d w";
    }
  }
}

TEST(FusedKernelsGpu, RotaryEqualsHfsChainOnTheProjectionLayout) {
  REQUIRE_GPU();
  at::manual_seed(2);
  struct Types { at::ScalarType x, c; };
  for (Types t : {Types{at::kFloat, at::kFloat}, Types{at::kBFloat16, at::kBFloat16}, Types{at::kBFloat16, at::kFloat}, Types{at::kHalf, at::kHalf}}) {
    const int64_t b = 2, h = 8, s = 300, d = 128;
    const at::Tensor x = at::randn({b, s, h, d}, kCuda).to(t.x).transpose(1, 2).requires_grad_(true);  // (B, H, T, D) view
    const at::Tensor freqs = at::rand({b, s, d / 2}, kCuda) * 100, emb = at::cat({freqs, freqs}, -1);
    const at::Tensor cos = emb.cos().to(t.c), sin = emb.sin().to(t.c);
    const at::Tensor y = k::rotary(x, cos, sin), y_ref = k::rotary_reference(x, cos, sin);
    EXPECT_EQ(y.strides(), y_ref.strides());
    const at::Tensor dy = at::randn(y_ref.sizes(), kCuda).to(y_ref.scalar_type());
    const auto dx = grads_of(y, {x}, dy), dx_ref = grads_of(y_ref, {x}, dy);
    EXPECT_TRUE(close(y, y_ref)) << t.x << "/" << t.c;
    EXPECT_TRUE(close(dx[0], dx_ref[0])) << t.x << "/" << t.c << " d x";
  }
  // x not dense (q sliced out of a fused qkv projection): the output is laid out otherwise than
  // x, and a gradient that is itself a transposed view; the kernel reads and writes by strides.
  const int64_t b = 2, h = 4, s = 37, d = 64;
  const at::Tensor qkv = at::randn({b, s, 3 * h * d}, kCuda);
  const at::Tensor x = qkv.narrow(-1, 0, h * d).view({b, s, h, d}).transpose(1, 2).detach().requires_grad_(true);
  const at::Tensor freqs = at::rand({b, s, d / 2}, kCuda) * 100, emb = at::cat({freqs, freqs}, -1);
  const at::Tensor y = k::rotary(x, emb.cos(), emb.sin()), y_ref = k::rotary_reference(x, emb.cos(), emb.sin());
  EXPECT_TRUE(close(y, y_ref)) << "strided";
  const at::Tensor dy = at::randn({b, s, h, d}, kCuda).transpose(1, 2);  // D still contiguous: the kernel takes it
  EXPECT_TRUE(close(grads_of(y, {x}, dy)[0], grads_of(y_ref, {x}, dy)[0])) << "strided d x";
  const at::Tensor dy_t = at::randn({b, h, d, s}, kCuda).transpose(2, 3);  // D strided: ATen's formula
  EXPECT_TRUE(close(grads_of(y, {x}, dy_t)[0], grads_of(y_ref, {x}, dy_t)[0])) << "D-strided d x";
}

TEST(FusedKernelsGpu, Fp32KernelsAgreeWithTheCpuLoops) {
  REQUIRE_GPU();
  at::manual_seed(3);
  const at::Tensor x = at::randn({257, 1024}), w = at::rand({1024}) + 0.5, g = at::randn({4096}), u = at::randn({4096});
  EXPECT_TRUE(at::allclose(k::rms_norm(x.cuda(), w.cuda(), 1e-5).cpu(), k::rms_norm(x, w, 1e-5), 1e-5, 1e-6));
  EXPECT_TRUE(at::allclose(k::swiglu(g.cuda(), u.cuda()).cpu(), k::swiglu(g, u), 1e-5, 1e-6));
}

TEST(FusedKernelsGpu, SingleNodesKeepLessActivationMemory) {
  REQUIRE_GPU();
  const at::Device dev(at::kCUDA, 0);
  const int64_t tokens = 8192, hidden = 2048, inter = 8192;
  auto held = [&](const std::function<at::Tensor()>& forward) {
    const int64_t before = runner::device::gpu_memory(dev).allocated;
    at::Tensor out = forward();  // the graph (and what it saved) stays alive with `out`
    const int64_t after = runner::device::gpu_memory(dev).allocated;
    return after - before - static_cast<int64_t>(out.nbytes());
  };
  const at::Tensor g = at::randn({tokens, inter}, kCuda.dtype(at::kBFloat16)).requires_grad_(true);
  const at::Tensor u = at::randn({tokens, inter}, kCuda.dtype(at::kBFloat16)).requires_grad_(true);
  const int64_t plain = held([&] { return at::silu(g) * u; }), fused = held([&] { return k::swiglu(g, u); });
  EXPECT_GE(plain - fused, 0.9 * g.nbytes()) << "SwiGLU: plain keeps " << plain << " bytes, fused " << fused;
  // Autocast's norm: fp32 rows and weight; HF's chain keeps the normalised fp32 rows besides x.
  const at::Tensor x = at::randn({tokens, hidden}, kCuda).requires_grad_(true), w = at::ones({hidden}, kCuda).requires_grad_(true);
  const int64_t plain_norm = held([&] { return k::rms_norm_reference(x, w, 1e-6); }), fused_norm = held([&] { return k::rms_norm(x, w, 1e-6); });
  EXPECT_GE(plain_norm - fused_norm, 0.9 * x.nbytes()) << "RMSNorm: plain keeps " << plain_norm << " bytes, fused " << fused_norm;
  std::printf("activation bytes kept: SwiGLU %lld plain, %lld fused; RMSNorm %lld plain, %lld fused\n", static_cast<long long>(plain),
              static_cast<long long>(fused), static_cast<long long>(plain_norm), static_cast<long long>(fused_norm));
}

TEST(FusedKernelsGpu, SwigluLinearWithALoraBranchEqualsTheChainUnderBf16AutocastAndKeepsNoProduct) {
  // Llama-3.1-8B's down_proj (14336 -> 4096, bf16 base) with an fp32 r = 16 branch, 2048 tokens:
  // the node keeps gate and up, the chain their product too (56 MiB).
  REQUIRE_GPU();
  at::manual_seed(4);
  const at::Device dev(at::kCUDA, 0);
  const int64_t tokens = 2048, inter = 14336, hidden = 4096, r = 16;
  const at::Tensor g = (at::randn({1, tokens, inter}, kCuda) * 2).to(at::kBFloat16).requires_grad_(true);
  const at::Tensor u = at::randn({1, tokens, inter}, kCuda).to(at::kBFloat16).requires_grad_(true);
  const at::Tensor w = (at::randn({hidden, inter}, kCuda) / 120).to(at::kBFloat16);
  const at::Tensor a = (at::randn({r, inter}, kCuda) / 120).requires_grad_(true), b = (at::randn({hidden, r}, kCuda) / 4).requires_grad_(true);
  const k::LinearWeights weights{w, at::Tensor(), a, b, 2.0};
  runner::device::AutocastGuard autocast(true, at::kCUDA, at::kBFloat16);
  ASSERT_TRUE(k::swiglu_linear_is_one_node(g, u, weights));
  auto held = [&](const std::function<at::Tensor()>& forward, at::Tensor& out) {
    const int64_t before = runner::device::gpu_memory(dev).allocated;
    out = forward();
    return runner::device::gpu_memory(dev).allocated - before - static_cast<int64_t>(out.nbytes());
  };
  at::Tensor y, ref;
  // Warm up first: the first cuBLAS call allocates its workspace through the caching allocator.
  k::swiglu_linear_reference(g, u, weights);
  const int64_t node = held([&] { return k::swiglu_linear(g, u, weights); }, y);
  const int64_t chain = held([&] { return k::swiglu_linear_reference(g, u, weights); }, ref);
  EXPECT_GE(chain - node, static_cast<int64_t>(0.9 * tokens * inter * 2)) << "the chain keeps " << chain << " bytes, the node " << node;
  EXPECT_EQ(runner::testing::graph_count_containing(y, "SwigluLinear"), 1);
  EXPECT_TRUE(close(y, ref, 2));
  const at::Tensor dy = at::randn_like(ref);
  const auto d = grads_of(y, {g, u, a, b}, dy), d_ref = grads_of(ref, {g, u, a, b}, dy);
  for (size_t i = 0; i < d.size(); ++i) {
    ASSERT_EQ(d[i].scalar_type(), d_ref[i].scalar_type()) << "gradient " << i;
    const double err = (d[i].to(at::kDouble) - d_ref[i].to(at::kDouble)).abs().max().item<double>() / d_ref[i].abs().max().item<double>();
    EXPECT_LT(err, 1e-2) << "gradient " << i;
  }
  std::printf("SwiGLU + LoRA down_proj at 2048 x 14336: the chain keeps %lld bytes, the node %lld\n", static_cast<long long>(chain),
              static_cast<long long>(node));
}

TEST(FusedKernelsGpu, RMSNormLinearKeepsNotTheNormsOutputUnderBf16Autocast) {
  // Llama-3.1-8B's q_proj branch A (r 16, fp32) on input_layernorm's bf16 output, 2048 tokens:
  // the chain's linear keeps the norm's output (16 MiB), the node the norm's input only, which
  // the norm's own node keeps anyway.
  REQUIRE_GPU();
  at::manual_seed(5);
  const at::Device dev(at::kCUDA, 0);
  const int64_t tokens = 2048, hidden = 4096, r = 16;
  const at::Tensor x = at::randn({1, tokens, hidden}, kCuda).to(at::kBFloat16).requires_grad_(true);
  const at::Tensor w = (at::rand({hidden}, kCuda) + 0.5).to(at::kBFloat16);
  const at::Tensor a = (at::randn({r, hidden}, kCuda) / 64).requires_grad_(true);
  runner::device::AutocastGuard autocast(true, at::kCUDA, at::kBFloat16);
  auto held = [&](bool fused, at::Tensor& out) {
    const int64_t before = runner::device::gpu_memory(dev).allocated;
    {
      const at::Tensor n = k::rms_norm(x, w, 1e-5);
      out = fused ? k::rms_norm_linear(n, x, w, 1e-5, a) : at::linear(n, a);
    }
    return runner::device::gpu_memory(dev).allocated - before - static_cast<int64_t>(out.nbytes());
  };
  at::Tensor y, ref;
  {  // warm-up: the first cuBLAS call allocates its workspace through the caching allocator
    at::Tensor discarded;
    held(false, discarded);
  }
  const int64_t node = held(true, y), chain = held(false, ref);
  EXPECT_GE(chain - node, static_cast<int64_t>(0.9 * tokens * hidden * 2)) << "the chain keeps " << chain << " bytes, the node " << node;
  EXPECT_EQ(runner::testing::graph_count_containing(y, "RMSNormLinear"), 1);
  EXPECT_TRUE(close(y, ref));
  const at::Tensor dy = at::randn_like(ref);
  const auto d = grads_of(y, {x, a}, dy), d_ref = grads_of(ref, {x, a}, dy);
  EXPECT_TRUE(close(d[0], d_ref[0], 2)) << "d x";
  const double err = (d[1] - d_ref[1]).abs().max().item<double>() / d_ref[1].abs().max().item<double>();
  EXPECT_LT(err, 1e-3) << "d A";
}
