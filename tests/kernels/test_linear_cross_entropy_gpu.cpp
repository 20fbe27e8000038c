// The chunked linear + cross-entropy on a CUDA device (label gpu: skipped, visibly, without
// one), where runner's row kernel (cuda/cross_entropy.cu) takes each chunk's loss and
// gradient: fp32 equals plain ATen on the same device; bf16 and fp16 under autocast, with a
// bias, stay within their rounding of it, and the gradients come back in the parameters'
// dtypes; an ignored row's logits, NaN included, never reach the loss.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <ATen/autocast_mode.h>

#include <cmath>
#include <limits>
#include <tuple>

#include "runtime/kernels/linear_cross_entropy.h"
#include "tests/gpu_test_util.h"

using Options = runner::kernels::LinearCrossEntropyOptions;

namespace {

double rel(const at::Tensor& a, const at::Tensor& b) {
  return (a.to(at::kDouble) - b.to(at::kDouble)).abs().max().item<double>() / b.abs().max().item<double>();
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
