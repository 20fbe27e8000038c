// Early stopping of unpromising trials, as optuna's MedianPruner: a trial whose intermediate
// objective at a step is worse than the median of what finished trials reported at that step is
// unlikely to end up best, so its remaining budget is better spent on a new trial.
#pragma once
#include <cstdint>
#include <vector>

#include "runtime/search/trial.h"

namespace runner::search {

class MedianPruner {
 public:
  // The defaults are optuna's: let a few trials finish before judging, and judge from the first step.
  MedianPruner(int n_startup_trials = 5, int64_t n_warmup_steps = 0);

  // optuna's PercentilePruner at 50: true when the best value `trial` reported so far (at any
  // step up to `step`) is worse than the median of what the complete trials of `history`
  // reported at `step`. Never while fewer than n_startup_trials trials completed (pruned ones
  // do not count, nor set the median), before step n_warmup_steps, when the trial reported
  // nothing at `step` or when no complete trial reported that step. A trial whose every value
  // is NaN is pruned; NaNs are left out of its best value and of the median. Single objective.
  bool should_prune(const std::vector<Trial>& history, const Trial& trial, int64_t step, Direction direction) const;

 private:
  int n_startup_trials_;
  int64_t n_warmup_steps_;
};

}  // namespace runner::search
