// The nn layers recipes build models from, with PyTorch's parameter names, shapes and
// default initialisation (so a state dict saved here loads in PyTorch and back).
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/models/module.h"

namespace runner::models {

class Linear : public Module {
 public:
  Linear(int64_t in_features, int64_t out_features, bool bias = true);
  at::Tensor forward_impl(const at::Tensor& x) override;  // (*, in) -> (*, out)
  at::Tensor weight, bias;                          // (out, in), (out)
};

// HF's Conv1D (GPT-2): a linear layer stored transposed, weight (in, out), y = x·W + b.
class Conv1D : public Module {
 public:
  Conv1D(int64_t in_features, int64_t out_features, bool bias, double init_std);  // weight ~ N(0, init_std)
  at::Tensor forward_impl(const at::Tensor& x) override;  // (*, in) -> (*, out)
  at::Tensor weight, bias;                          // (in, out), (out)
};

class Embedding : public Module {
 public:
  Embedding(int64_t num_embeddings, int64_t embedding_dim, std::optional<int64_t> padding_idx = std::nullopt);
  at::Tensor forward_impl(const at::Tensor& ids) override;  // (*) int64 -> (*, dim)
  at::Tensor weight;                                  // (num, dim)
  std::optional<int64_t> padding_idx;
  // Gemma's √hidden_size (Gemma3TextScaledWordEmbedding): the output times it rounded to the
  // weight's dtype; a LoRA branch is scaled by it too (peft), and output hooks (NEFTune) see
  // the scaled embeddings, as transformers' hooks do.
  double output_scale = 1.0;
  // A host 0-dim tensor in the weight's dtype (the rounding); ATen reads it as a scalar on any device.
  at::Tensor rounded_scale() const { return at::scalar_tensor(output_scale, at::TensorOptions().dtype(weight.scalar_type())); }
};

class LayerNorm : public Module {
 public:
  LayerNorm(std::vector<int64_t> normalized_shape, double eps = 1e-5, bool elementwise_affine = true, bool bias = true);
  at::Tensor forward_impl(const at::Tensor& x) override;
  std::vector<int64_t> normalized_shape;
  double eps;
  at::Tensor weight, bias;
  // Set by a model whose norm output only feeds matrix multiplies (GPT's ln_1, ln_2, ln_f; its
  // blocks clear it while a LoRA branch reads the norm's output too): under CUDA autocast the
  // output is then written in the autocast dtype (kernels/layer_norm.h), the values the matmul
  // would cast ATen's fp32 output to. Off (nn.LayerNorm, post-norm models whose norm output is
  // the residual stream): ATen's layer_norm, fp32 under autocast. A recipe calling such a norm
  // itself under autocast on a GPU gets the low dtype too.
  bool feeds_matmuls = false;
};

// Root-mean-square norm (PyTorch nn.RMSNorm, HF LlamaRMSNorm): x / sqrt(mean(x²) + eps) · weight,
// computed in fp32 whatever the input dtype (as HF does, so bf16 training normalises exactly).
class RMSNorm : public Module {
 public:
  // unit_offset: Gemma's, whose weight is an offset from one, zeros at init; the whole norm in
  // fp32, x̂·(1 + w), cast back to x's dtype once (Llama's rounds x̂ first, then scales).
  RMSNorm(int64_t dim, double eps = 1e-6, bool unit_offset = false);
  at::Tensor forward_impl(const at::Tensor& x) override;  // (*, dim)
  double eps;
  bool unit_offset;
  at::Tensor weight;  // (dim), ones at init (zeros with unit_offset)
};

// PyTorch nn.GroupNorm: statistics over each group of channels of (B, C, *) inputs.
class GroupNorm : public Module {
 public:
  GroupNorm(int64_t num_groups, int64_t num_channels, double eps = 1e-5, bool affine = true);
  at::Tensor forward_impl(const at::Tensor& x) override;
  int64_t num_groups, num_channels;
  double eps;
  at::Tensor weight, bias;  // (C): ones, zeros
};

class Dropout : public Module {
 public:
  explicit Dropout(double p = 0.5);
  at::Tensor forward_impl(const at::Tensor& x) override;
  double p;
};

// Parameter-free elementwise layers: ReLU, GELU (approximate "none" | "tanh"), Tanh, Sigmoid,
// SiLU, Mish, Hardswish, Hardsigmoid, Softsign (activations.h: those with settings).
class Activation : public Module {
 public:
  explicit Activation(std::string kind, std::string approximate = "none");
  at::Tensor forward_impl(const at::Tensor& x) override;
  std::string kind, approximate;
};

class Conv2d : public Module {
 public:
  Conv2d(int64_t in_channels, int64_t out_channels, std::vector<int64_t> kernel_size, std::vector<int64_t> stride = {1, 1},
         std::vector<int64_t> padding = {0, 0}, std::vector<int64_t> dilation = {1, 1}, int64_t groups = 1, bool bias = true);
  at::Tensor forward_impl(const at::Tensor& x) override;  // (B, C_in, H, W) -> (B, C_out, H', W')
  at::Tensor weight, bias;                          // (C_out, C_in / groups, kH, kW), (C_out)
  std::vector<int64_t> stride, padding, dilation;
  int64_t groups;
};

class MaxPool2d : public Module {
 public:
  MaxPool2d(std::vector<int64_t> kernel_size, std::vector<int64_t> stride, std::vector<int64_t> padding = {0, 0});
  at::Tensor forward_impl(const at::Tensor& x) override;
  std::vector<int64_t> kernel_size, stride, padding;
};

class Flatten : public Module {
 public:
  explicit Flatten(int64_t start_dim = 1, int64_t end_dim = -1);
  at::Tensor forward_impl(const at::Tensor& x) override;
  int64_t start_dim, end_dim;
};

// Children named "0", "1", ...; forward chains them.
class Sequential : public Module {
 public:
  explicit Sequential(const std::vector<ModulePtr>& layers = {});
  void append(ModulePtr layer);
  at::Tensor forward_impl(const at::Tensor& x) override;
  size_t size() const { return children().size(); }
};

// A list of children named "0", "1", ... without a forward of its own.
class ModuleList : public Module {
 public:
  explicit ModuleList(const std::vector<ModulePtr>& items = {});
  void append(ModulePtr item);
  size_t size() const { return children().size(); }
};

// Children under the given names, without a forward of its own (PyTorch nn.ModuleDict).
class ModuleDict : public Module {
 public:
  explicit ModuleDict(const std::vector<std::pair<std::string, ModulePtr>>& items = {});
};

}  // namespace runner::models
