// Synthetic datasets for smoke tests, tutorials and convergence checks: generated in
// memory from a seed with a private generator (the global RNG is untouched), so the same
// options give the same data on every run.
#pragma once
#include <cstdint>
#include <memory>

#include "runtime/data/dataset.h"

namespace runner::data {

struct SyntheticOptions {
  int64_t n = 0;
  int64_t features = 1;
  double noise = 0.1;
  int64_t seed = 0;
};

// Linear regression: fields "x" (n, features) float32 and "labels" (n, 1) float32 with
//   labels = x · weightᵀ + bias + noise · ε.
// Draw order from the generator seeded by `seed`: weight (1, features) ~ N(0, 1), bias (1)
// ~ N(0, 1), x ~ N(0, 1), ε ~ N(0, 1). weight and bias have nn.Linear(features, 1)'s
// layout, so a recipe can compare a trained model's parameters with them directly.
class SyntheticRegression : public TensorDataset {
 public:
  SyntheticRegression(Batch columns, at::Tensor weight, at::Tensor bias, std::string origin)
      : TensorDataset(std::move(columns), std::move(origin)), weight_(std::move(weight)), bias_(std::move(bias)) {}
  const at::Tensor& weight() const { return weight_; }
  const at::Tensor& bias() const { return bias_; }

 private:
  at::Tensor weight_, bias_;
};

std::shared_ptr<const SyntheticRegression> synthetic_regression(const SyntheticOptions& options);

struct ClassificationOptions {
  int64_t n = 0;
  int64_t features = 2;
  int64_t classes = 2;
  int64_t seed = 0;
  double separation = 3.0;
};

// Gaussian blobs: class k has a center c_k ~ N(0, separation²·I) (drawn first), and its
// examples are c_k + N(0, I). Classes are balanced (n / classes each, the first n % classes
// classes one more) and appear in a random order. Fields "x" (n, features) float32 and
// "labels" (n) int64.
DatasetPtr synthetic_classification(const ClassificationOptions& options);

}  // namespace runner::data
