#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "runtime/search/pareto.h"
#include "runtime/search/parzen_estimator.h"
#include "runtime/search/rng.h"
#include "runtime/search/sampler.h"
#include "runtime/search/space.h"

namespace runner::search {

namespace {

using Kind = Distribution::Kind;

// optuna's default_gamma: the good set grows with the search but stays small enough to be selective.
size_t n_good(size_t n) { return std::min<size_t>(static_cast<size_t>(std::ceil(0.1 * static_cast<double>(n))), 25); }

// The TPE model of a numeric parameter lives in log space for log scales (so 1e-5 and 1e-4 are as far
// apart as 1e-2 and 1e-1); a discrete one spans the outer edges of its grid bins.
struct NumericSpace {
  const Distribution& d;
  bool discrete = is_discrete(d);
  double to(double x) const { return d.log ? std::log(x) : x; }
  double from(double y) const { return d.log ? std::exp(y) : y; }
  double low() const { return to(discrete ? grid_bin(d, 0).first : d.low); }
  double high() const { return to(discrete ? grid_bin(d, grid_count(d) - 1).second : d.high); }
};

class TpeSampler : public Sampler {
 public:
  TpeSampler(uint64_t seed, std::vector<Direction> directions, int n_startup_trials, int n_ei_candidates)
      : seed_(seed), directions_(std::move(directions)), n_startup_(n_startup_trials), n_ei_(n_ei_candidates) {
    if (directions_.empty()) throw std::invalid_argument("TPE needs at least one direction");
    if (n_startup_trials < 0) throw std::invalid_argument("n_startup_trials must be >= 0");
    if (n_ei_candidates < 1) throw std::invalid_argument("n_ei_candidates must be >= 1");
  }

  nlohmann::json sample(const std::vector<Trial>& history, const Trial& trial, const std::string& name,
                        const Distribution& d) override {
    d.check(name);
    Rng rng = make_rng(seed_, trial.number, name);
    if (is_discrete(d) && grid_count(d) == 1) return grid_value(d, 0);
    if (d.kind == Kind::kFloat && d.low == d.high) return d.low;

    // The trials that can teach us about this parameter, in trial order (optuna's weights ramp with age).
    std::vector<const Trial*> seen;
    for (const auto& t : history)
      if (informative(t, name, d)) seen.push_back(&t);
    if (seen.size() < static_cast<size_t>(std::max(n_startup_, 1))) return draw_uniform(d, rng);
    std::stable_sort(seen.begin(), seen.end(), [](const Trial* a, const Trial* b) { return a->number < b->number; });

    // Pruned trials are observations too, always bad (optuna ranks them below every complete
    // trial): without them a region that keeps being pruned would keep being proposed.
    std::vector<std::vector<double>> points;
    std::vector<size_t> complete;
    for (size_t i = 0; i < seen.size(); ++i)
      if (seen[i]->state == Trial::State::kComplete) {
        points.push_back(seen[i]->values);
        complete.push_back(i);
      }
    std::vector<bool> is_good(seen.size(), false);
    for (size_t i : select_best(points, directions_, std::min(points.size(), n_good(seen.size())))) is_good[complete[i]] = true;

    if (d.kind == Kind::kCategorical) return sample_categorical(seen, is_good, name, d, rng);
    return sample_numeric(seen, is_good, name, d, rng);
  }

 private:
  bool informative(const Trial& t, const std::string& name, const Distribution& d) const {
    if (t.state != Trial::State::kPruned && (t.state != Trial::State::kComplete || t.values.size() != directions_.size())) return false;
    if (std::any_of(t.values.begin(), t.values.end(), [](double v) { return std::isnan(v); })) return false;
    auto it = t.distributions.find(name);
    const nlohmann::json* v = t.param(name);
    if (it == t.distributions.end() || !v || it->second != d) return false;
    if (d.kind == Kind::kCategorical) return std::find(d.choices.begin(), d.choices.end(), *v) != d.choices.end();
    return v->is_number() && (!d.log || v->get<double>() > 0);
  }

  nlohmann::json sample_categorical(const std::vector<const Trial*>& seen, const std::vector<bool>& is_good,
                                    const std::string& name, const Distribution& d, Rng& rng) const {
    std::vector<size_t> good, bad;
    for (size_t i = 0; i < seen.size(); ++i) {
      size_t c = std::find(d.choices.begin(), d.choices.end(), *seen[i]->param(name)) - d.choices.begin();
      (is_good[i] ? good : bad).push_back(c);
    }
    CategoricalEstimator l(good, d.choices.size()), g(bad, d.choices.size());
    size_t best = 0;
    double best_score = -std::numeric_limits<double>::infinity();
    for (int i = 0; i < n_ei_; ++i) {
      size_t c = l.sample(rng);
      double score = l.log_p(c) - g.log_p(c);
      if (i == 0 || score > best_score) {
        best = c;
        best_score = score;
      }
    }
    return d.choices[best];
  }

  nlohmann::json sample_numeric(const std::vector<const Trial*>& seen, const std::vector<bool>& is_good,
                                const std::string& name, const Distribution& d, Rng& rng) const {
    NumericSpace space{d};
    std::vector<double> good, bad;
    for (size_t i = 0; i < seen.size(); ++i)
      (is_good[i] ? good : bad).push_back(space.to(seen[i]->param(name)->get<double>()));
    const double low = space.low(), high = space.high();
    for (auto* obs : {&good, &bad})
      for (double& y : *obs) y = std::clamp(y, low, high);
    ParzenEstimator l(good, low, high), g(bad, low, high);

    nlohmann::json best;
    double best_score = -std::numeric_limits<double>::infinity();
    for (int i = 0; i < n_ei_; ++i) {
      double y = l.sample(rng);
      nlohmann::json value;
      double score;
      if (space.discrete) {
        // A grid point stands for its whole bin, so compare the probability mass of the bin.
        int64_t k = grid_index(d, space.from(y));
        auto [lo, hi] = grid_bin(d, k);
        value = grid_value(d, k);
        score = l.log_mass(space.to(lo), space.to(hi)) - g.log_mass(space.to(lo), space.to(hi));
      } else {
        value = std::clamp(space.from(y), d.low, d.high);
        score = l.log_pdf(y) - g.log_pdf(y);
      }
      if (std::isnan(score)) score = -std::numeric_limits<double>::infinity();  // both densities underflowed
      if (best.is_null() || score > best_score) {
        best = value;
        best_score = score;
      }
    }
    return best;
  }

  uint64_t seed_;
  std::vector<Direction> directions_;
  int n_startup_;
  int n_ei_;
};

}  // namespace

std::unique_ptr<Sampler> make_tpe_sampler(uint64_t seed, std::vector<Direction> directions, int n_startup_trials,
                                          int n_ei_candidates) {
  return std::make_unique<TpeSampler>(seed, std::move(directions), n_startup_trials, n_ei_candidates);
}

}  // namespace runner::search
