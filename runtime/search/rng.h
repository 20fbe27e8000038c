// Random numbers for the samplers. std::mt19937_64 is fully specified by the standard, but the
// std::*_distribution classes are not (libstdc++ and libc++ draw different values), so every draw
// goes through the helpers below: a seed gives the same search on every platform.
#pragma once
#include <cstdint>
#include <random>
#include <string>

namespace runner::search {

using Rng = std::mt19937_64;

// A generator for one (trial, parameter) draw. Deriving it from the seed instead of advancing one
// shared stream makes a sampler a pure function of (seed, history, trial, name): the order in which
// a recipe suggests its parameters, or a resumed search, does not shift every later value.
Rng make_rng(uint64_t seed, int trial_number, const std::string& name);

double uniform01(Rng& rng);                       // [0, 1), 53 random bits
int64_t uniform_index(Rng& rng, int64_t n);       // [0, n), unbiased
double normal_cdf(double z);                      // Phi(z)
double normal_ppf(double p);                      // Phi^-1(p); -inf at 0, +inf at 1
double log_normal_interval(double za, double zb);  // log(Phi(zb) - Phi(za)), accurate far in the tails

// A draw from N(mu, sigma^2) restricted to [low, high] (inverse-CDF, so one uniform per draw).
double truncated_normal(Rng& rng, double mu, double sigma, double low, double high);

}  // namespace runner::search
