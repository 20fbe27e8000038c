#include "runtime/search/space.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace runner::search {

namespace {

using Kind = Distribution::Kind;

int64_t as_int(double x) { return static_cast<int64_t>(std::llround(x)); }

}  // namespace

bool is_discrete(const Distribution& d) { return d.kind != Kind::kFloat || d.step.has_value(); }

double step_of(const Distribution& d) {
  if (d.step) return *d.step;
  return d.kind == Kind::kInt ? 1.0 : 0.0;
}

int64_t grid_count(const Distribution& d) {
  if (d.kind == Kind::kCategorical) return static_cast<int64_t>(d.choices.size());
  if (d.kind == Kind::kInt) return (as_int(d.high) - as_int(d.low)) / as_int(step_of(d)) + 1;
  if (!d.step) throw std::invalid_argument("a float without a step has no grid");
  // The tolerance keeps 0.3 / 0.1 = 2.9999999999999996 from losing the last point.
  double r = (d.high - d.low) / *d.step;
  if (r > 1e15) throw std::invalid_argument("step " + nlohmann::json(*d.step).dump() + " is too small for its range");
  return static_cast<int64_t>(std::floor(r + 1e-9 * std::max(1.0, r))) + 1;
}

nlohmann::json grid_value(const Distribution& d, int64_t k) {
  if (d.kind == Kind::kCategorical) return d.choices[static_cast<size_t>(k)];
  if (d.kind == Kind::kInt) return as_int(d.low) + k * as_int(step_of(d));
  return std::min(d.low + static_cast<double>(k) * *d.step, d.high);
}

int64_t grid_index(const Distribution& d, double x) {
  double k = std::round((x - d.low) / step_of(d));
  return static_cast<int64_t>(std::clamp(k, 0.0, static_cast<double>(grid_count(d) - 1)));
}

nlohmann::json snap(const Distribution& d, double x) {
  if (is_discrete(d)) return grid_value(d, grid_index(d, x));
  return std::clamp(x, d.low, d.high);
}

std::pair<double, double> grid_bin(const Distribution& d, int64_t k) {
  double step = step_of(d);
  double x = grid_value(d, k).get<double>();
  double lo = x - step / 2, hi = x + step / 2;
  if (d.log && k == 0) lo = std::max(lo, x / 2);
  return {lo, hi};
}

nlohmann::json draw_uniform(const Distribution& d, Rng& rng) {
  if (d.kind == Kind::kCategorical) return d.choices[static_cast<size_t>(uniform_index(rng, grid_count(d)))];
  if (!is_discrete(d)) {
    double u = uniform01(rng);
    if (d.log) return std::clamp(std::exp(std::log(d.low) + u * (std::log(d.high) - std::log(d.low))), d.low, d.high);
    return std::clamp(d.low + u * (d.high - d.low), d.low, d.high);
  }
  int64_t n = grid_count(d);
  if (!d.log) return grid_value(d, uniform_index(rng, n));
  // Log-uniform over the bins' outer edges, then round: each point gets the log-width of its bin.
  double lo = std::log(grid_bin(d, 0).first), hi = std::log(grid_bin(d, n - 1).second);
  return snap(d, std::exp(lo + uniform01(rng) * (hi - lo)));
}

}  // namespace runner::search
