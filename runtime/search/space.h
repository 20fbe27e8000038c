// How a Distribution becomes concrete values: its grid of allowed points (ints, stepped floats,
// categorical choices) and a uniform draw from it. Shared by the random, grid and TPE samplers so
// that all three agree on what "on the grid" and "inside the bounds" mean.
#pragma once
#include <cstdint>
#include <utility>

#include <nlohmann/json.hpp>

#include "runtime/search/rng.h"
#include "runtime/search/trial.h"

namespace runner::search {

// Ints, stepped floats and categoricals take finitely many values; plain floats do not.
bool is_discrete(const Distribution& d);
double step_of(const Distribution& d);  // the grid step of a numeric distribution (int default 1; 0 when none)

// How many values a discrete distribution allows. A high that is not on the step grid is lowered
// to the last grid point below it (as optuna does), so low + k * step for k < count are all in bounds.
int64_t grid_count(const Distribution& d);
// The k-th allowed value (0 <= k < grid_count), typed as sample() returns it.
nlohmann::json grid_value(const Distribution& d, int64_t k);
// The nearest allowed numeric value to x, clipped to the bounds and typed as sample() returns it:
// an int64 for ints, a double for floats.
nlohmann::json snap(const Distribution& d, double x);
int64_t grid_index(const Distribution& d, double x);  // index of snap(d, x) (numeric discrete only)
// The interval of original-space values that round to point k: half a step either side, but kept
// above 0 for log scales so it has a logarithm.
std::pair<double, double> grid_bin(const Distribution& d, int64_t k);

// A value drawn uniformly (log-uniformly for log scales) from the distribution.
nlohmann::json draw_uniform(const Distribution& d, Rng& rng);

}  // namespace runner::search
