#include "runtime/models/activations.h"

#include <ATen/ATen.h>

#include "runtime/core/errors.h"

namespace runner::models {

Softmax::Softmax(int64_t d, bool l) : Module(l ? "LogSoftmax" : "Softmax"), dim(d), log(l) {}

at::Tensor Softmax::forward_impl(const at::Tensor& x) { return log ? at::log_softmax(x, dim) : at::softmax(x, dim); }

ParametricActivation::ParametricActivation(std::string k, double a_, double b_) : Module(k), kind(std::move(k)), a(a_), b(b_) {
  if (kind == "Hardtanh" && !(a < b)) throw RecipeError("nn.Hardtanh: min_val must be below max_val");
  if (kind == "Softplus" && a == 0) throw RecipeError("nn.Softplus: beta must not be 0");
  if (kind != "LeakyReLU" && kind != "ELU" && kind != "Softplus" && kind != "Hardtanh") throw RecipeError("unknown activation " + kind);
}

at::Tensor ParametricActivation::forward_impl(const at::Tensor& x) {
  if (kind == "LeakyReLU") return at::leaky_relu(x, a);
  if (kind == "ELU") return at::elu(x, a);
  if (kind == "Softplus") return at::softplus(x, a, b);
  return at::hardtanh(x, a, b);
}

}  // namespace runner::models
