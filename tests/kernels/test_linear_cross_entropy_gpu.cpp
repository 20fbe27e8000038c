// The chunked linear + cross-entropy on a CUDA device (label gpu: skipped, visibly, without
// one), where runner's row kernel (cuda/cross_entropy.cu) takes each chunk's loss and
// gradient: fp32 equals plain ATen on the same device; bf16 and fp16 under autocast, with a
// bias, stay within their rounding of it, and the gradients come back in the parameters'
// dtypes (an fp16 weight gradient whose chunk sum passes 65504 included); an ignored row's logits, NaN included, never reach the loss; the kernel itself
// equals ATen's chain across row widths, dtypes and more rows than one grid holds.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <ATen/autocast_mode.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <tuple>

#include "runtime/device/autocast.h"
#include "runtime/kernels/linear_cross_entropy.h"
#include "tests/gpu_test_util.h"
#include "tests/gpu_timing.h"
#include "tests/kernels/mean_scale_check.h"

using Options = runner::kernels::LinearCrossEntropyOptions;

namespace {

double rel(const at::Tensor& a, const at::Tensor& b) {
  // Against a floor: a one-class row's loss and gradient are exactly 0.
  return (a.to(at::kDouble) - b.to(at::kDouble)).abs().max().item<double>() / std::max(b.abs().max().item<double>(), 1e-30);
}

struct Grads {
  at::Tensor loss, d_hidden, d_weight, d_bias;
};

Grads run(const at::Tensor& h0, const at::Tensor& w0, const at::Tensor& labels, bool fused, bool autocast,
          at::ScalarType low = at::kBFloat16, const at::Tensor& b0 = {}) {
  const at::Tensor h = h0.detach().clone().requires_grad_(true), w = w0.detach().clone().requires_grad_(true);
  const at::Tensor b = b0.defined() ? b0.detach().clone().requires_grad_(true) : at::Tensor();
  at::Tensor loss;
  {
    at::autocast::set_autocast_enabled(at::kCUDA, autocast);
    at::autocast::set_autocast_dtype(at::kCUDA, low);
    Options o;
    o.chunk_rows = 96;
    loss = fused ? runner::kernels::linear_cross_entropy(h, w, b, labels, o)
                 : runner::kernels::linear_cross_entropy_reference(h, w, b, labels, o);
    at::autocast::clear_cache();
    at::autocast::set_autocast_enabled(at::kCUDA, false);
  }
  loss.backward();
  return {loss.detach(), h.grad(), w.grad(), b.defined() ? b.grad() : at::Tensor()};
}

}  // namespace

TEST(LinearCrossEntropyGpu, Fp32AndBf16AutocastEqualPlainAten) {
  REQUIRE_GPU();
  at::manual_seed(0);
  const at::TensorOptions cuda = at::TensorOptions().device(at::kCUDA);
  const at::Tensor h = at::randn({1000, 256}, cuda), w = at::randn({32000, 256}, cuda) * 0.05;
  at::Tensor labels = at::randint(32000, {1000}, cuda.dtype(at::kLong));
  labels.narrow(0, 100, 200).fill_(-100);
  const Grads f32 = run(h, w, labels, true, false), p32 = run(h, w, labels, false, false);
  // cuBLAS may use TF32 for fp32 only when asked; runner leaves it off, so 1e-5 holds.
  EXPECT_LE(rel(f32.loss, p32.loss), 1e-5);
  EXPECT_LE(rel(f32.d_hidden, p32.d_hidden), 1e-5);
  EXPECT_LE(rel(f32.d_weight, p32.d_weight), 1e-5);
  const Grads fb = run(h, w, labels, true, true), pb = run(h, w, labels, false, true);
  EXPECT_EQ(fb.d_weight.scalar_type(), at::kFloat);
  EXPECT_LE(rel(fb.loss, pb.loss), 5e-3);
  EXPECT_LE(rel(fb.d_hidden, p32.d_hidden), 2 * rel(pb.d_hidden, p32.d_hidden) + 4e-3);
  EXPECT_LE(rel(fb.d_weight, p32.d_weight), 2 * rel(pb.d_weight, p32.d_weight) + 4e-3);
}

TEST(LinearCrossEntropyGpu, Fp16AutocastWithABiasStaysWithinRounding) {
  REQUIRE_GPU();
  at::manual_seed(1);
  const at::TensorOptions cuda = at::TensorOptions().device(at::kCUDA);
  const at::Tensor h = at::randn({777, 128}, cuda), w = at::randn({5003, 128}, cuda) * 0.05, b = at::randn({5003}, cuda) * 0.1;
  at::Tensor labels = at::randint(5003, {777}, cuda.dtype(at::kLong));
  labels.narrow(0, 0, 50).fill_(-100);
  const Grads p32 = run(h, w, labels, false, false, at::kHalf, b);
  const Grads f32 = run(h, w, labels, true, false, at::kHalf, b);
  EXPECT_LE(rel(f32.loss, p32.loss), 1e-5);
  EXPECT_LE(rel(f32.d_bias, p32.d_bias), 1e-5);
  const Grads fh = run(h, w, labels, true, true, at::kHalf, b), ph = run(h, w, labels, false, true, at::kHalf, b);
  EXPECT_EQ(fh.d_bias.scalar_type(), at::kFloat);
  EXPECT_LE(rel(fh.loss, ph.loss), 5e-3);
  for (auto [f, p, ref] : {std::tuple{fh.d_hidden, ph.d_hidden, p32.d_hidden}, std::tuple{fh.d_weight, ph.d_weight, p32.d_weight},
                           std::tuple{fh.d_bias, ph.d_bias, p32.d_bias}})
    EXPECT_LE(rel(f, ref), 2 * rel(p, ref) + 4e-3);
}

TEST(LinearCrossEntropyGpu, AnIgnoredRowsLogitsNeverReachTheLoss) {
  REQUIRE_GPU();
  at::manual_seed(2);
  const at::TensorOptions cuda = at::TensorOptions().device(at::kCUDA);
  at::Tensor h = at::randn({300, 64}, cuda);
  const at::Tensor w = at::randn({1000, 64}, cuda) * 0.05;
  at::Tensor labels = at::randint(1000, {300}, cuda.dtype(at::kLong));
  labels.narrow(0, 100, 40).fill_(-100);
  h.narrow(0, 100, 40).zero_();
  const Grads zero = run(h, w, labels, true, true);
  h.narrow(0, 100, 40).fill_(std::numeric_limits<float>::quiet_NaN());  // a padded position that attended to nothing
  const Grads nan = run(h, w, labels, true, true);
  EXPECT_TRUE(std::isfinite(nan.loss.item<double>()));
  EXPECT_TRUE(at::equal(nan.loss, zero.loss));
  EXPECT_TRUE(at::equal(nan.d_hidden, zero.d_hidden));  // the ignored rows' zeros included
  EXPECT_EQ(nan.d_hidden.narrow(0, 100, 40).abs().sum().item<double>(), 0.0);
}

// One label over a whole chunk under fp16 autocast: the weight gradient's chunk sum, not yet
// divided by the count (about 96 rows × 1000 here), is past fp16's 65504. cuBLAS writes it in
// fp32 (mm's out_dtype), so it stays finite and within fp16's rounding of the fp32 gradient,
// as ATen's chain, which divides by the count before its fp16 GEMM, does.
TEST(LinearCrossEntropyGpu, Fp16WeightGradientOfARepeatedLabelStaysFinite) {
  REQUIRE_GPU();
  at::manual_seed(3);
  const at::TensorOptions cuda = at::TensorOptions().device(at::kCUDA);
  at::Tensor h = at::randn({960, 64}, cuda);
  h.select(1, 0).fill_(1000.0);  // an outlier channel, as large models' hidden states have
  const at::Tensor w = at::randn({1000, 64}, cuda) * 0.001;
  const at::Tensor labels = at::full({960}, 7, cuda.dtype(at::kLong));
  const Grads p32 = run(h, w, labels, false, false, at::kHalf);
  const Grads fh = run(h, w, labels, true, true, at::kHalf), ph = run(h, w, labels, false, true, at::kHalf);
  EXPECT_TRUE(at::isfinite(fh.d_weight).all().item<bool>());
  EXPECT_LE(rel(fh.d_weight, p32.d_weight), 2 * rel(ph.d_weight, p32.d_weight) + 4e-3);
  EXPECT_LE(rel(fh.d_hidden, p32.d_hidden), 2 * rel(ph.d_hidden, p32.d_hidden) + 4e-3);
  EXPECT_LE(rel(fh.loss, p32.loss), 5e-3);
}

// The row kernel itself, through an identity weight (the logits are the hidden states, and
// d hidden is the kernel's gradient): row widths around the block's 512 threads, more rows
// than a grid holds, every dtype, labels at both ends, an ignore_index inside the range, and
// the loss without gradients (evaluation), against ATen's chain on the same logits.
TEST(LinearCrossEntropyGpu, RowKernelEqualsAtenAcrossWidthsDtypesAndRows) {
  REQUIRE_GPU();
  at::manual_seed(3);
  struct Case {
    int64_t rows, cols;
  };
  for (const at::ScalarType dtype : {at::kFloat, at::kBFloat16, at::kHalf})
    for (const Case c : {Case{5, 1}, Case{7, 3}, Case{33, 513}, Case{17, 4099}, Case{70000, 3}}) {
      const std::string what = std::string(c10::toString(dtype)) + " " + std::to_string(c.rows) + "x" + std::to_string(c.cols);
      const at::TensorOptions on = at::TensorOptions().device(at::kCUDA).dtype(dtype);
      const at::Tensor h0 = (at::randn({c.rows, c.cols}) * 3).to(on), w = at::eye(c.cols, on);
      at::Tensor labels = at::randint(c.cols, {c.rows}, at::TensorOptions().device(at::kCUDA).dtype(at::kLong));
      labels[0] = 0;
      labels[c.rows - 1] = c.cols - 1;
      Options o;
      o.ignore_index = c.cols > 1 ? 1 : -100;  // inside the range where there is room
      ASSERT_TRUE(runner::kernels::linear_cross_entropy_uses_row_kernel(h0, w, o)) << what;
      auto both = [&](bool fused) {
        const at::Tensor h = h0.detach().clone().requires_grad_(true);
        const at::Tensor loss = fused ? runner::kernels::linear_cross_entropy(h, w, {}, labels, o)
                                      : runner::kernels::linear_cross_entropy_reference(h, w, {}, labels, o);
        loss.backward();
        return std::pair{loss.detach(), h.grad()};
      };
      const auto [loss, grad] = both(true);
      const auto [ref_loss, ref_grad] = both(false);
      EXPECT_LE(rel(loss, ref_loss), 1e-5) << what;  // the same logits, the loss in float either way
      EXPECT_LE(rel(grad, ref_grad), dtype == at::kFloat ? 1e-5 : 1e-2) << what;  // the gradient rounded to the dtype either way
      at::Tensor no_grad_loss;
      {
        at::NoGradGuard no_grad;
        no_grad_loss = runner::kernels::linear_cross_entropy(h0, w, {}, labels, o);
      }
      EXPECT_TRUE(at::equal(no_grad_loss, loss)) << what;
    }
}

// Not a timed test (nothing is asserted about speed): the GPU check's log shows what GPT-2's
// odd vocabulary costs the loss. Its chunks' logit rows are padded to 50304 elements
// (linear_cross_entropy_row_stride); a vocabulary of 50304 is the aligned yardstick and the
// plain ATen path (contiguous (N, 50257) logits, as an eager PyTorch loop has) the other.
TEST(LinearCrossEntropyGpu, PrintsGpt2sLossTimeAgainstAnAlignedVocabulary) {
  REQUIRE_GPU();
  at::manual_seed(0);
  const at::TensorOptions cuda = at::TensorOptions().device(at::kCUDA);
  const int64_t n = 8192, h = 768;  // GPT-2 small, 8 x 1024 tokens
  auto step = [&](int64_t v, bool fused) {
    const at::Tensor hidden = at::randn({n, h}, cuda.dtype(at::kBFloat16)).requires_grad_(true);
    const at::Tensor weight = (at::randn({v, h}, cuda) * 0.02).requires_grad_(true);
    const at::Tensor labels = at::randint(v, {n}, cuda.dtype(at::kLong));
    return runner::testing::gpu_ms_per_call([&] {
      at::Tensor loss;
      {
        const runner::device::AutocastGuard autocast(true, at::kCUDA, at::kBFloat16);
        loss = fused ? runner::kernels::linear_cross_entropy(hidden, weight, {}, labels)
                     : runner::kernels::linear_cross_entropy_reference(hidden, weight, {}, labels);
      }
      loss.backward();
      hidden.mutable_grad().reset();
      weight.mutable_grad().reset();
    }, 10);
  };
  const double odd = step(50257, true), aligned = step(50304, true), plain = step(50257, false);
  std::printf("GPT-2 loss (8192 x 768 -> vocabulary, bf16 autocast, forward + backward): fused 50257 %.3f ms, fused 50304 %.3f ms, "
              "plain ATen 50257 %.3f ms\n", odd, aligned, plain);
  EXPECT_GT(odd, 0.0);
}

// As on the CPU: the mean's bf16 gradients are the sum's scaled in float and rounded once
// (ATen's CUDA multiply by a 0-dim fp32 tensor computes in float).
TEST(LinearCrossEntropyGpu, Bf16GradientsAreScaledByTheMeanInFloat) {
  REQUIRE_GPU();
  runner::testing::expect_mean_gradients_scaled_in_float(at::Device(at::kCUDA, 0));
}
