// Layers without weights beyond the plain activations of layers.h: the ones with a setting
// (LeakyReLU's slope, Softmax's dim), and Identity. PyTorch's names and defaults; none adds a
// state-dict entry, so models built from them load PyTorch's state dicts unchanged.
#pragma once
#include <string>

#include "runtime/models/module.h"

namespace runner::models {

class Identity : public Module {
 public:
  Identity() : Module("Identity") {}
  at::Tensor forward_impl(const at::Tensor& x) override { return x; }
};

// Softmax / LogSoftmax over `dim` (PyTorch's implicit dim is deprecated there: required here).
class Softmax : public Module {
 public:
  Softmax(int64_t dim, bool log);
  at::Tensor forward_impl(const at::Tensor& x) override;
  int64_t dim;
  bool log;
};

// Elementwise layers with settings, PyTorch's defaults:
//   LeakyReLU(negative_slope = 0.01), ELU(alpha = 1), Softplus(beta = 1, threshold = 20),
//   Hardtanh(min_val = -1, max_val = 1).  a, b: the settings in that order.
class ParametricActivation : public Module {
 public:
  ParametricActivation(std::string kind, double a, double b = 0);
  at::Tensor forward_impl(const at::Tensor& x) override;
  std::string kind;
  double a, b;
};

}  // namespace runner::models
