#pragma once
// A linear layer's weights as the fused nodes take them (swiglu_linear.h, and the models'
// LoRA projections): weight and bias, and a LoRA branch's A, B and scaling.
#include <ATen/core/Tensor.h>

namespace runner::kernels {

struct LinearWeights {
  at::Tensor weight;          // (out, in)
  at::Tensor bias;            // (out), or undefined
  at::Tensor lora_a, lora_b;  // (r, in), (out, r): a LoRA branch, or both undefined
  double scaling = 1.0;       // the branch's alpha / r
};

}  // namespace runner::kernels
