#include "runtime/models/layers.h"

#include <cmath>
#include <cstdio>

#include "runtime/core/errors.h"
#include "runtime/models/builtin.h"
#include "runtime/models/parameter_store.h"
#include "runtime/kernels/gelu.h"
#include "runtime/kernels/layer_norm.h"
#include "runtime/kernels/rms_norm.h"
#include <ATen/autocast_mode.h>
#include <c10/core/GradMode.h>

namespace runner::models {

namespace {

// PyTorch's default for Linear and Conv: kaiming_uniform_(a=sqrt(5)) on the weight, which
// works out to U(-1/sqrt(fan_in), 1/sqrt(fan_in)), and the same bound for the bias.
at::Tensor uniform_init(at::IntArrayRef shape, int64_t fan_in) {
  const double bound = fan_in > 0 ? 1.0 / std::sqrt(static_cast<double>(fan_in)) : 0.0;
  return at::empty(shape, param_options()).uniform_(-bound, bound);
}

void check_positive(const char* layer, const char* what, int64_t v) {
  if (v <= 0) throw RecipeError(std::string(layer) + ": " + what + " must be > 0, got " + std::to_string(v));
}

}  // namespace

Linear::Linear(int64_t in, int64_t out, bool has_bias) : Module("Linear") {
  check_positive("nn.Linear", "in_features", in);
  check_positive("nn.Linear", "out_features", out);
  c10::NoGradGuard no_grad;
  weight = register_parameter("weight", uniform_init({out, in}, in));
  if (has_bias) bias = register_parameter("bias", uniform_init({out}, in));
  mirror_parameter("weight", &weight);
  mirror_parameter("bias", &bias);
}

at::Tensor Linear::forward_impl(const at::Tensor& x) { return at::linear(x, weight, bias); }

Conv1D::Conv1D(int64_t in, int64_t out, bool has_bias, double std) : Module("Conv1D") {
  c10::NoGradGuard no_grad;
  weight = register_parameter("weight", at::empty({in, out}, param_options()).normal_(0.0, std));
  if (has_bias) bias = register_parameter("bias", at::zeros({out}, param_options()));
  mirror_parameter("weight", &weight);
  mirror_parameter("bias", &bias);
}

at::Tensor Conv1D::forward_impl(const at::Tensor& x) {
  std::vector<int64_t> shape = x.sizes().vec();
  shape.back() = weight.size(1);
  at::Tensor flat = x.reshape({-1, x.size(-1)});
  at::Tensor y = bias.defined() ? at::addmm(bias, flat, weight) : at::mm(flat, weight);
  return y.view(shape);
}

Embedding::Embedding(int64_t num, int64_t dim, std::optional<int64_t> pad) : Module("Embedding"), padding_idx(pad) {
  check_positive("nn.Embedding", "num_embeddings", num);
  check_positive("nn.Embedding", "embedding_dim", dim);
  c10::NoGradGuard no_grad;
  at::Tensor w = at::randn({num, dim}, param_options());
  if (pad) {
    if (*pad < -num || *pad >= num) throw RecipeError("nn.Embedding: padding_idx must be within num_embeddings");
    if (*pad < 0) padding_idx = *pad + num;
    w[*padding_idx].zero_();
  }
  weight = register_parameter("weight", w);
  mirror_parameter("weight", &weight);
}

at::Tensor Embedding::forward_impl(const at::Tensor& ids) {
  const at::Tensor out = at::embedding(weight, ids, padding_idx.value_or(-1));
  return output_scale == 1.0 ? out : out * rounded_scale();
}

LayerNorm::LayerNorm(std::vector<int64_t> shape, double eps_, bool affine, bool has_bias)
    : Module("LayerNorm"), normalized_shape(std::move(shape)), eps(eps_) {
  if (affine) {
    weight = register_parameter("weight", at::ones(normalized_shape, param_options()));
    if (has_bias) bias = register_parameter("bias", at::zeros(normalized_shape, param_options()));
  }
  mirror_parameter("weight", &weight);
  mirror_parameter("bias", &bias);
}

at::Tensor LayerNorm::forward_impl(const at::Tensor& x) {
  if (feeds_matmuls && x.is_cuda() && normalized_shape.size() == 1 && x.dim() >= 1 && x.size(-1) == normalized_shape[0] &&
      at::autocast::is_autocast_enabled(at::kCUDA)) {
    const at::ScalarType low = at::autocast::get_autocast_dtype(at::kCUDA);
    if (kernels::layer_norm_to_takes_kernel(x, weight, bias, low)) return kernels::layer_norm_to(x, weight, bias, eps, low);
  }
  return at::layer_norm(x, normalized_shape, weight, bias, eps);
}

RMSNorm::RMSNorm(int64_t dim, double eps_, bool offset) : Module("RMSNorm"), eps(eps_), unit_offset(offset) {
  weight = register_parameter("weight", offset ? at::zeros({dim}, param_options()) : at::ones({dim}, param_options()));
  mirror_parameter("weight", &weight);
}

at::Tensor RMSNorm::forward_impl(const at::Tensor& x) {
  if (!unit_offset) return kernels::rms_norm(x, weight, eps);
  const at::Tensor f = x.to(at::kFloat);
  return (f * at::rsqrt(f.pow(2).mean(-1, /*keepdim=*/true) + eps) * (weight.to(at::kFloat) + 1.0)).to(x.scalar_type());
}

GroupNorm::GroupNorm(int64_t groups, int64_t channels, double eps_, bool affine)
    : Module("GroupNorm"), num_groups(groups), num_channels(channels), eps(eps_) {
  check_positive("nn.GroupNorm", "num_groups", groups);
  check_positive("nn.GroupNorm", "num_channels", channels);
  if (channels % groups) throw RecipeError("nn.GroupNorm: num_channels must be divisible by num_groups");
  if (affine) {
    weight = register_parameter("weight", at::ones({channels}, param_options()));
    bias = register_parameter("bias", at::zeros({channels}, param_options()));
  }
  mirror_parameter("weight", &weight);
  mirror_parameter("bias", &bias);
}

at::Tensor GroupNorm::forward_impl(const at::Tensor& x) { return at::group_norm(x, num_groups, weight, bias, eps); }

Dropout::Dropout(double p_) : Module("Dropout"), p(p_) {
  if (p < 0 || p > 1) throw RecipeError("nn.Dropout: p must be in [0, 1], got " + std::to_string(p));
}

at::Tensor Dropout::forward_impl(const at::Tensor& x) { return at::dropout(x, p, dropout_active()); }

Activation::Activation(std::string k, std::string approx) : Module(k), kind(std::move(k)), approximate(std::move(approx)) {
  if (approximate != "none" && approximate != "tanh")
    throw RecipeError("nn.GELU: approximate must be \"none\" or \"tanh\", got \"" + approximate + "\"");
}

at::Tensor Activation::forward_impl(const at::Tensor& x) {
  if (kind == "ReLU") return at::relu(x);
  if (kind == "GELU") return approximate == "tanh" ? kernels::gelu_tanh(x) : at::gelu(x);
  if (kind == "Tanh") return at::tanh(x);
  if (kind == "Sigmoid") return at::sigmoid(x);
  if (kind == "SiLU") return at::silu(x);
  if (kind == "Mish") return at::mish(x);
  if (kind == "Hardswish") return at::hardswish(x);
  if (kind == "Hardsigmoid") return at::hardsigmoid(x);
  if (kind == "Softsign") return x / (x.abs() + 1);
  throw RecipeError("unknown activation " + kind);
}

Conv2d::Conv2d(int64_t in, int64_t out, std::vector<int64_t> k, std::vector<int64_t> s, std::vector<int64_t> p,
               std::vector<int64_t> d, int64_t g, bool has_bias)
    : Module("Conv2d"), stride(std::move(s)), padding(std::move(p)), dilation(std::move(d)), groups(g) {
  check_positive("nn.Conv2d", "in_channels", in);
  check_positive("nn.Conv2d", "out_channels", out);
  check_positive("nn.Conv2d", "groups", g);
  if (in % g || out % g) throw RecipeError("nn.Conv2d: in_channels and out_channels must be divisible by groups");
  if (k.size() != 2) throw RecipeError("nn.Conv2d: kernel_size must be a number or a pair");
  const int64_t fan_in = in / g * k[0] * k[1];
  c10::NoGradGuard no_grad;
  weight = register_parameter("weight", uniform_init({out, in / g, k[0], k[1]}, fan_in));
  if (has_bias) bias = register_parameter("bias", uniform_init({out}, fan_in));
  mirror_parameter("weight", &weight);
  mirror_parameter("bias", &bias);
}

at::Tensor Conv2d::forward_impl(const at::Tensor& x) { return at::conv2d(x, weight, bias, stride, padding, dilation, groups); }

MaxPool2d::MaxPool2d(std::vector<int64_t> k, std::vector<int64_t> s, std::vector<int64_t> p)
    : Module("MaxPool2d"), kernel_size(std::move(k)), stride(std::move(s)), padding(std::move(p)) {}

at::Tensor MaxPool2d::forward_impl(const at::Tensor& x) { return at::max_pool2d(x, kernel_size, stride, padding); }

Flatten::Flatten(int64_t s, int64_t e) : Module("Flatten"), start_dim(s), end_dim(e) {}

at::Tensor Flatten::forward_impl(const at::Tensor& x) { return x.flatten(start_dim, end_dim); }

Sequential::Sequential(const std::vector<ModulePtr>& layers) : Module("Sequential") {
  for (const auto& l : layers) append(l);
}

void Sequential::append(ModulePtr layer) { register_module(std::to_string(children().size()), std::move(layer)); }

at::Tensor Sequential::forward_impl(const at::Tensor& x) {
  at::Tensor h = x;
  for (const auto& [name, layer] : children()) h = layer->forward(h);
  return h;
}

void check_model_scale(const std::string& model, int64_t n_layer, double parameters) {
  if (n_layer > 100000)
    throw RecipeError(model + ": n_layer = " + std::to_string(n_layer) + " is more than 100000 layers; check the configuration");
  if (parameters > 1e12) {
    char n[32];
    std::snprintf(n, sizeof n, "%.3g", parameters);
    throw RecipeError(model + ": this configuration has " + std::string(n) +
                      " parameters (more than 10^12, 4 TB in fp32); check n_layer and the sizes");
  }
}

ModuleList::ModuleList(const std::vector<ModulePtr>& items) : Module("ModuleList") {
  for (const auto& m : items) append(m);
}

void ModuleList::append(ModulePtr item) { register_module(std::to_string(children().size()), std::move(item)); }

ModuleDict::ModuleDict(const std::vector<std::pair<std::string, ModulePtr>>& items) : Module("ModuleDict") {
  for (const auto& [name, m] : items) register_module(name, m);
}

}  // namespace runner::models
