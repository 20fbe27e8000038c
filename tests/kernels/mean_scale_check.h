// The mean's gradients of the chunked linear + cross-entropy are the sum's times 1/count in
// float, rounded once to the inputs' dtype, as ATen's fp32 loss gives them: 1/count rounded
// to bf16 first (1/3 -> 0.33398) would move every gradient by the same factor, up to 2^-9, a
// bias bf16's rounding of each value never has. Shared by the CPU and the GPU tests: on a GPU
// a bf16 tensor times a 0-dim fp32 device tensor reads the factor in bf16, which the CPU's
// multiply does not, so only the GPU case sees that rounding (a review found it there).
#pragma once
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <utility>

#include "runtime/kernels/linear_cross_entropy.h"

namespace runner::testing {

inline void expect_mean_gradients_scaled_in_float(const at::Device& device) {
  using Options = runner::kernels::LinearCrossEntropyOptions;
  at::manual_seed(11);
  const auto bf16 = at::TensorOptions().dtype(at::kBFloat16).device(device);
  const at::Tensor hidden = at::randn({3, 512}).to(bf16), weight = (at::randn({301, 512}) * 0.5).to(bf16);
  const at::Tensor labels = at::randint(301, {3}, at::kLong).to(device);
  auto grads = [&](Options::Reduction reduction) {
    const at::Tensor h = hidden.clone().requires_grad_(true), w = weight.clone().requires_grad_(true);
    Options o;
    o.reduction = reduction;
    runner::kernels::linear_cross_entropy(h, w, at::Tensor(), labels, o).backward();
    return std::make_pair(h.grad(), w.grad());
  };
  const auto [h_mean, w_mean] = grads(Options::Reduction::kMean);
  const auto [h_sum, w_sum] = grads(Options::Reduction::kSum);
  const float third = 1.0f / 3.0f;
  EXPECT_TRUE(h_mean.equal((h_sum.to(at::kFloat) * third).to(at::kBFloat16))) << "d hidden on " << device;
  EXPECT_TRUE(w_mean.equal((w_sum.to(at::kFloat) * third).to(at::kBFloat16))) << "d weight on " << device;
}

}  // namespace runner::testing
