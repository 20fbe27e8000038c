// The two densities TPE compares: l(x) fitted to the good trials and g(x) to the rest. A numeric
// estimator is a mixture of truncated Gaussians, one per observation plus a wide prior at the middle
// of the range (so an estimator never rules out an unexplored region); a categorical one is a
// weighted histogram with one pseudo-count per choice. Both follow optuna's _ParzenEstimator.
#pragma once
#include <cstddef>
#include <vector>

#include "runtime/search/rng.h"

namespace runner::search {

// optuna's default_weights: 1 each for up to 25 observations (in trial order); beyond that the older
// ones ramp down from 1 to 1/n, so the model tracks where the search is now rather than where it began.
std::vector<double> observation_weights(size_t n);

class ParzenEstimator {
 public:
  // `observations` in trial order and in the space the search is modelled in (logarithms for log
  // scales); [low, high] is that space's range, low < high.
  ParzenEstimator(const std::vector<double>& observations, double low, double high);

  double sample(Rng& rng) const;
  double log_pdf(double x) const;
  double log_mass(double lo, double hi) const;  // log P(lo <= X <= hi), for the bins of a grid

  // The mixture, prior last: exposed for tests.
  const std::vector<double>& mus() const { return mus_; }
  const std::vector<double>& sigmas() const { return sigmas_; }
  const std::vector<double>& weights() const { return weights_; }

 private:
  double low_, high_;
  std::vector<double> mus_, sigmas_, weights_;
  std::vector<double> log_weights_, log_norms_;  // log w_i and log of each kernel's mass inside [low, high]
};

class CategoricalEstimator {
 public:
  CategoricalEstimator(const std::vector<size_t>& observations, size_t n_choices);

  size_t sample(Rng& rng) const;
  double log_p(size_t choice) const;

 private:
  std::vector<double> probs_;
};

}  // namespace runner::search
