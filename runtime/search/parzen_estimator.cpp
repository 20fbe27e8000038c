#include "runtime/search/parzen_estimator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace runner::search {

namespace {

constexpr double kLogSqrt2Pi = 0.91893853320467274178;
constexpr double kPriorWeight = 1.0;  // optuna's prior_weight

double log_sum_exp(const std::vector<double>& xs) {
  double m = -std::numeric_limits<double>::infinity();
  for (double x : xs) m = std::max(m, x);
  if (!std::isfinite(m)) return m;
  double s = 0;
  for (double x : xs) s += std::exp(x - m);
  return m + std::log(s);
}

size_t pick(const std::vector<double>& probs, Rng& rng) {
  double u = uniform01(rng), acc = 0;
  for (size_t i = 0; i < probs.size(); ++i) {
    acc += probs[i];
    if (u < acc) return i;
  }
  return probs.size() - 1;  // rounding left the cumulative sum a hair under 1
}

std::vector<double> normalised(std::vector<double> w) {
  double total = std::accumulate(w.begin(), w.end(), 0.0);
  for (double& x : w) x /= total;
  return w;
}

}  // namespace

std::vector<double> observation_weights(size_t n) {
  if (n < 25) return std::vector<double>(n, 1.0);
  std::vector<double> w(n, 1.0);
  size_t ramp = n - 25;  // np.linspace(1 / n, 1, n - 25)
  for (size_t i = 0; i < ramp; ++i)
    w[i] = ramp == 1 ? 1.0 / n : 1.0 / n + (1.0 - 1.0 / n) * static_cast<double>(i) / static_cast<double>(ramp - 1);
  return w;
}

ParzenEstimator::ParzenEstimator(const std::vector<double>& observations, double low, double high)
    : low_(low), high_(high) {
  const size_t n = observations.size();
  const double range = high - low;
  mus_ = observations;
  mus_.push_back(0.5 * (low + high));

  // Each kernel is as wide as the larger gap to its neighbours (the range ends count as neighbours),
  // except that the outermost observations ignore the range end, as optuna's consider_endpoints=False.
  std::vector<size_t> order(mus_.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return mus_[a] < mus_[b]; });
  std::vector<double> sorted{low};
  for (size_t i : order) sorted.push_back(mus_[i]);
  sorted.push_back(high);
  const size_t m = mus_.size();
  std::vector<double> sorted_sigma(m);
  for (size_t i = 0; i < m; ++i) sorted_sigma[i] = std::max(sorted[i + 1] - sorted[i], sorted[i + 2] - sorted[i + 1]);
  if (m >= 2) {
    sorted_sigma[0] = sorted[2] - sorted[1];
    sorted_sigma[m - 1] = sorted[m] - sorted[m - 1];
  }
  // optuna's "magic clip": no kernel narrower than range / min(100, 1 + kernels) nor wider than the range.
  const double min_sigma = range / std::min(100.0, 1.0 + static_cast<double>(m));
  sigmas_.assign(m, 0.0);
  for (size_t i = 0; i < m; ++i) sigmas_[order[i]] = std::clamp(sorted_sigma[i], min_sigma, range);
  sigmas_[n] = range;  // the prior

  weights_ = observation_weights(n);
  weights_.push_back(kPriorWeight);
  weights_ = normalised(weights_);
  for (size_t i = 0; i < m; ++i) {
    log_weights_.push_back(std::log(weights_[i]));
    log_norms_.push_back(log_normal_interval((low - mus_[i]) / sigmas_[i], (high - mus_[i]) / sigmas_[i]));
  }
}

double ParzenEstimator::sample(Rng& rng) const {
  size_t k = pick(weights_, rng);
  return truncated_normal(rng, mus_[k], sigmas_[k], low_, high_);
}

double ParzenEstimator::log_pdf(double x) const {
  std::vector<double> terms(mus_.size());
  for (size_t i = 0; i < mus_.size(); ++i) {
    double z = (x - mus_[i]) / sigmas_[i];
    terms[i] = log_weights_[i] - 0.5 * z * z - kLogSqrt2Pi - std::log(sigmas_[i]) - log_norms_[i];
  }
  return log_sum_exp(terms);
}

double ParzenEstimator::log_mass(double lo, double hi) const {
  lo = std::max(lo, low_);
  hi = std::min(hi, high_);
  std::vector<double> terms(mus_.size());
  for (size_t i = 0; i < mus_.size(); ++i)
    terms[i] = log_weights_[i] + log_normal_interval((lo - mus_[i]) / sigmas_[i], (hi - mus_[i]) / sigmas_[i]) -
               log_norms_[i];
  return log_sum_exp(terms);
}

CategoricalEstimator::CategoricalEstimator(const std::vector<size_t>& observations, size_t n_choices)
    : probs_(n_choices, 1.0) {  // the Laplace prior: every choice keeps a chance
  std::vector<double> w = observation_weights(observations.size());
  for (size_t i = 0; i < observations.size(); ++i) probs_[observations[i]] += w[i];
  probs_ = normalised(probs_);
}

size_t CategoricalEstimator::sample(Rng& rng) const { return pick(probs_, rng); }

double CategoricalEstimator::log_p(size_t choice) const { return std::log(probs_[choice]); }

}  // namespace runner::search
