// Samplers choose the next value of each hyperparameter from what earlier trials found. One
// interface, three strategies: random (the baseline), grid (exhaustive) and TPE (model-based, as
// optuna's default). The caller owns the trial history; samplers only read it.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/search/trial.h"

namespace runner::search {

class Sampler {
 public:
  virtual ~Sampler() = default;
  // The value of parameter `name` (distribution `d`) for `trial`, given `history`: every other trial
  // so far, in any state, not including `trial`. A double for floats, an int64 for ints, one of
  // `d.choices` for categoricals; always inside the bounds and on the step grid when there is one.
  // Throws std::invalid_argument when `d` fails Distribution::check.
  virtual nlohmann::json sample(const std::vector<Trial>& history, const Trial& trial, const std::string& name,
                                const Distribution& d) = 0;
  // Grid only: how many points the space has (the product over the parameters suggested so far,
  // final once the first trial has suggested all of its parameters); std::nullopt otherwise.
  virtual std::optional<int64_t> grid_size() const { return std::nullopt; }
};

// Independent uniform draws (log-uniform on log scales). The value for (trial number, name) depends
// only on the seed, so a search is reproducible whatever order the recipe suggests its parameters in.
std::unique_ptr<Sampler> make_random_sampler(uint64_t seed);

// The cartesian product of the parameters, in the order they were first suggested (by this sampler,
// or in `history` when it starts on an existing search). Trial n gets point n in mixed radix, the
// first parameter varying fastest; trials past grid_size() wrap around. Floats need a step, ints use
// theirs (default 1), categoricals their choices; a log float with a step takes low, low + step, ...
std::unique_ptr<Sampler> make_grid_sampler();

// Tree-structured Parzen Estimator (Bergstra et al. 2011), optuna's default independent TPESampler.
// A parameter learns only from complete trials with NaN-free values that suggested it with an equal
// distribution; while fewer than n_startup_trials such trials exist it draws exactly what
// make_random_sampler(seed) would. Then those trials are split into the best min(ceil(0.1 n), 25)
// and the rest, a Parzen estimator is fitted to each and, of n_ei_candidates drawn from the good
// one, the value maximising log l(x) - log g(x) is returned. With several directions the good set
// is filled front by front of the non-dominated sorting, the last front by crowding distance
// (pareto.h's select_best). Like optuna's, it can settle on a categorical choice early and keep it.
std::unique_ptr<Sampler> make_tpe_sampler(uint64_t seed, std::vector<Direction> directions, int n_startup_trials = 10,
                                          int n_ei_candidates = 24);

}  // namespace runner::search
