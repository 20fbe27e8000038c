// Convolution and pooling layers beyond layers.h's Conv2d / MaxPool2d, with PyTorch's
// parameter names, shapes and default initialisation.
#pragma once
#include <vector>

#include "runtime/models/module.h"

namespace runner::models {

class Conv1d : public Module {
 public:
  Conv1d(int64_t in_channels, int64_t out_channels, int64_t kernel_size, int64_t stride = 1, int64_t padding = 0,
         int64_t dilation = 1, int64_t groups = 1, bool bias = true);
  at::Tensor forward_impl(const at::Tensor& x) override;  // (B, C_in, L) -> (B, C_out, L')
  at::Tensor weight, bias;                                // (C_out, C_in / groups, k), (C_out)
  int64_t stride, padding, dilation, groups;
};

class AvgPool2d : public Module {
 public:
  AvgPool2d(std::vector<int64_t> kernel_size, std::vector<int64_t> stride, std::vector<int64_t> padding = {0, 0},
            bool ceil_mode = false, bool count_include_pad = true);
  at::Tensor forward_impl(const at::Tensor& x) override;
  std::vector<int64_t> kernel_size, stride, padding;
  bool ceil_mode, count_include_pad;
};

class AdaptiveAvgPool2d : public Module {
 public:
  explicit AdaptiveAvgPool2d(std::vector<int64_t> output_size);
  at::Tensor forward_impl(const at::Tensor& x) override;  // (B, C, H, W) -> (B, C, oH, oW)
  std::vector<int64_t> output_size;
};

}  // namespace runner::models
