#include "runtime/data/sources/synthetic.h"

#include <ATen/CPUGeneratorImpl.h>

#include <sstream>

#include "runtime/core/errors.h"

namespace runner::data {

namespace {

at::Generator generator(int64_t seed) { return at::make_generator<at::CPUGeneratorImpl>(static_cast<uint64_t>(seed)); }

void check_positive(int64_t v, const char* name, const std::string& where) {
  if (v < 1) throw DataError(std::string(name) + " must be >= 1 (got " + std::to_string(v) + ")", where);
}

}  // namespace

std::shared_ptr<const SyntheticRegression> synthetic_regression(const SyntheticOptions& o) {
  std::ostringstream origin;
  origin << "data.synthetic.regression(n=" << o.n << ", features=" << o.features << ", noise=" << o.noise << ", seed=" << o.seed << ")";
  check_positive(o.n, "n", origin.str());
  check_positive(o.features, "features", origin.str());
  if (!(o.noise >= 0)) throw DataError("noise must be >= 0", origin.str());
  at::Generator gen = generator(o.seed);
  const auto f32 = at::TensorOptions().dtype(at::kFloat);
  at::Tensor weight = at::randn({1, o.features}, gen, f32);
  at::Tensor bias = at::randn({1}, gen, f32);
  at::Tensor x = at::randn({o.n, o.features}, gen, f32);
  at::Tensor eps = at::randn({o.n, 1}, gen, f32);
  at::Tensor labels = at::addmm(bias, x, weight.t()) + eps * o.noise;
  return std::make_shared<const SyntheticRegression>(Batch{{"x", x}, {"labels", labels}}, weight, bias, origin.str());
}

DatasetPtr synthetic_classification(const ClassificationOptions& o) {
  std::ostringstream origin;
  origin << "data.synthetic.classification(n=" << o.n << ", features=" << o.features << ", classes=" << o.classes
         << ", separation=" << o.separation << ", seed=" << o.seed << ")";
  check_positive(o.n, "n", origin.str());
  check_positive(o.features, "features", origin.str());
  if (o.classes < 2) throw DataError("classes must be >= 2 (got " + std::to_string(o.classes) + ")", origin.str());
  if (!(o.separation >= 0)) throw DataError("separation must be >= 0", origin.str());
  at::Generator gen = generator(o.seed);
  const auto f32 = at::TensorOptions().dtype(at::kFloat);
  at::Tensor centers = at::randn({o.classes, o.features}, gen, f32) * o.separation;
  // Balanced labels (i mod classes) in a random order.
  at::Tensor perm = at::randperm(o.n, gen, at::TensorOptions().dtype(at::kLong));
  at::Tensor labels = at::remainder(perm, o.classes);
  at::Tensor x = centers.index_select(0, labels) + at::randn({o.n, o.features}, gen, f32);
  return std::make_shared<TensorDataset>(Batch{{"x", x}, {"labels", labels}}, origin.str());
}

}  // namespace runner::data
