#include "runtime/models/conv_pool.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include <cmath>

#include "runtime/core/errors.h"
#include "runtime/models/parameter_store.h"

namespace runner::models {

Conv1d::Conv1d(int64_t in, int64_t out, int64_t k, int64_t s, int64_t p, int64_t d, int64_t g, bool has_bias)
    : Module("Conv1d"), stride(s), padding(p), dilation(d), groups(g) {
  if (in <= 0 || out <= 0 || k <= 0 || g <= 0 || s <= 0 || d <= 0 || p < 0)
    throw RecipeError("nn.Conv1d: in_channels, out_channels, kernel_size, stride, dilation and groups must be > 0, padding >= 0");
  if (in % g || out % g) throw RecipeError("nn.Conv1d: in_channels and out_channels must be divisible by groups");
  // PyTorch's kaiming_uniform_(a=sqrt(5)): U(±1/sqrt(fan_in)) for weight and bias.
  const double bound = 1.0 / std::sqrt(static_cast<double>(in / g * k));
  c10::NoGradGuard no_grad;
  weight = register_parameter("weight", at::empty({out, in / g, k}, param_options()).uniform_(-bound, bound));
  if (has_bias) bias = register_parameter("bias", at::empty({out}, param_options()).uniform_(-bound, bound));
  mirror_parameter("weight", &weight);
  mirror_parameter("bias", &bias);
}

at::Tensor Conv1d::forward_impl(const at::Tensor& x) { return at::conv1d(x, weight, bias, stride, padding, dilation, groups); }

AvgPool2d::AvgPool2d(std::vector<int64_t> k, std::vector<int64_t> s, std::vector<int64_t> p, bool ceil, bool include_pad)
    : Module("AvgPool2d"), kernel_size(std::move(k)), stride(std::move(s)), padding(std::move(p)), ceil_mode(ceil),
      count_include_pad(include_pad) {}

at::Tensor AvgPool2d::forward_impl(const at::Tensor& x) {
  return at::avg_pool2d(x, kernel_size, stride, padding, ceil_mode, count_include_pad);
}

AdaptiveAvgPool2d::AdaptiveAvgPool2d(std::vector<int64_t> size) : Module("AdaptiveAvgPool2d"), output_size(std::move(size)) {
  if (output_size.size() != 2 || output_size[0] <= 0 || output_size[1] <= 0)
    throw RecipeError("nn.AdaptiveAvgPool2d: output_size must be a positive number or pair");
}

at::Tensor AdaptiveAvgPool2d::forward_impl(const at::Tensor& x) { return at::adaptive_avg_pool2d(x, output_size); }

}  // namespace runner::models
