// Ranking trials by their objective values: the best trial of a single objective, the Pareto front
// of several, and the non-dominated sorting that TPE uses to tell good multi-objective trials from
// bad ones. Only complete trials whose values are all numbers (no NaN) and match the number of
// directions take part; pruned, failed and running trials have no final values to compare.
#pragma once
#include <cstddef>
#include <vector>

#include "runtime/search/trial.h"

namespace runner::search {

// True when `a` is at least as good as `b` in every objective and strictly better in one.
bool dominates(const std::vector<double>& a, const std::vector<double>& b, const std::vector<Direction>& directions);

// The front of each point under non-dominated sorting (Deb et al. 2002): 0 for the points nothing
// dominates, 1 for those only front 0 dominates, and so on.
std::vector<int> nondominated_ranks(const std::vector<std::vector<double>>& points,
                                    const std::vector<Direction>& directions);

// The crowding distance of each of `members` (indices into `points`, one front): infinite at the
// extremes of any objective, else the normalised size of the box between its neighbours.
std::vector<double> crowding_distance(const std::vector<std::vector<double>>& points,
                                      const std::vector<size_t>& members);

// The indices of the `k` best points, ascending. One objective: by value, ties to the lower index.
// Several: whole fronts in rank order, then the front that does not fit whole contributes its
// least crowded points (largest crowding distance first, ties to the lower index), as NSGA-II does,
// so the good set keeps the spread of the front rather than one end of it.
std::vector<size_t> select_best(const std::vector<std::vector<double>>& points,
                                const std::vector<Direction>& directions, size_t k);

// Numbers of the complete trials no other complete trial dominates, in trial-number order.
std::vector<int> pareto_front(const std::vector<Trial>& trials, const std::vector<Direction>& directions);

// The complete trial with the best values[0] (ties: lowest number), or -1 when there is none.
int best_trial(const std::vector<Trial>& trials, Direction direction);

}  // namespace runner::search
