// The chunked linear + cross-entropy on a CUDA device (label gpu: skipped, visibly, without
// one): fp32 equals plain ATen on the same device; bf16 weights under autocast stay within
// bf16 rounding of it, and the gradients come back in the parameters' dtypes.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <ATen/autocast_mode.h>

#include "runtime/kernels/linear_cross_entropy.h"
#include "tests/gpu_test_util.h"

using Options = runner::kernels::LinearCrossEntropyOptions;

namespace {

double rel(const at::Tensor& a, const at::Tensor& b) {
  return (a.to(at::kDouble) - b.to(at::kDouble)).abs().max().item<double>() / b.abs().max().item<double>();
}

struct Grads {
  at::Tensor loss, d_hidden, d_weight;
};

Grads run(const at::Tensor& h0, const at::Tensor& w0, const at::Tensor& labels, bool fused, bool autocast) {
  const at::Tensor h = h0.detach().clone().requires_grad_(true), w = w0.detach().clone().requires_grad_(true);
  at::Tensor loss;
  {
    at::autocast::set_autocast_enabled(at::kCUDA, autocast);
    at::autocast::set_autocast_dtype(at::kCUDA, at::kBFloat16);
    Options o;
    o.chunk_rows = 96;
    loss = fused ? runner::kernels::linear_cross_entropy(h, w, {}, labels, o)
                 : runner::kernels::linear_cross_entropy_reference(h, w, {}, labels, o);
    at::autocast::clear_cache();
    at::autocast::set_autocast_enabled(at::kCUDA, false);
  }
  loss.backward();
  return {loss.detach(), h.grad(), w.grad()};
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
