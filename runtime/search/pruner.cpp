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
  auto own = trial.intermediate.find(step);
  if (own == trial.intermediate.end()) return false;

  int finished = 0;
  std::vector<double> others;
  for (const auto& t : history) {
    if (t.number == trial.number) continue;
    if (t.state != Trial::State::kComplete && t.state != Trial::State::kPruned) continue;
    ++finished;
    auto it = t.intermediate.find(step);
    if (it != t.intermediate.end() && !std::isnan(it->second)) others.push_back(it->second);
  }
  if (finished < n_startup_trials_ || others.empty()) return false;
  if (std::isnan(own->second)) return true;

  // The median as numpy computes it: the mean of the two middle values for an even count.
  size_t mid = others.size() / 2;
  std::nth_element(others.begin(), others.begin() + mid, others.end());
  double median = others[mid];
  if (others.size() % 2 == 0) median = (median + *std::max_element(others.begin(), others.begin() + mid)) / 2;
  return better(median, own->second, direction);
}

}  // namespace runner::search
