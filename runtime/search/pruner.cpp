#include "runtime/search/pruner.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace runner::search {

MedianPruner::MedianPruner(int n_startup_trials, int64_t n_warmup_steps)
    : n_startup_trials_(n_startup_trials), n_warmup_steps_(n_warmup_steps) {
  if (n_startup_trials < 0) throw std::invalid_argument("n_startup_trials must be >= 0");
  if (n_warmup_steps < 0) throw std::invalid_argument("n_warmup_steps must be >= 0");
}

bool MedianPruner::should_prune(const std::vector<Trial>& history, const Trial& trial, int64_t step,
                                Direction direction) const {
  if (step < n_warmup_steps_) return false;
  if (!trial.intermediate.count(step)) return false;

  int complete = 0;
  std::vector<double> others;
  for (const auto& t : history) {
    if (t.number == trial.number || t.state != Trial::State::kComplete) continue;
    ++complete;
    auto it = t.intermediate.find(step);
    if (it != t.intermediate.end() && !std::isnan(it->second)) others.push_back(it->second);  // numpy's nanpercentile
  }
  if (complete == 0 || complete < n_startup_trials_) return false;
  // The trial's best value over the steps it reported (optuna: nanmin / nanmax); all NaN is pruned.
  double best = NAN;
  for (const auto& [s, v] : trial.intermediate)
    if (!std::isnan(v) && (std::isnan(best) || better(v, best, direction))) best = v;
  if (std::isnan(best)) return true;
  if (others.empty()) return false;

  // The median as numpy computes it: the mean of the two middle values for an even count.
  size_t mid = others.size() / 2;
  std::nth_element(others.begin(), others.begin() + mid, others.end());
  double median = others[mid];
  if (others.size() % 2 == 0) median = (median + *std::max_element(others.begin(), others.begin() + mid)) / 2;
  return better(median, best, direction);
}

}  // namespace runner::search
