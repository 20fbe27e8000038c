// A minimal search loop for the sampler tests: what `runner search` does around a sampler, with a
// closed-form objective in place of training.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "runtime/search/sampler.h"
#include "runtime/search/trial.h"

namespace runner::search::testing {

inline Distribution float_dist(double low, double high, bool log = false, std::optional<double> step = std::nullopt) {
  Distribution d;
  d.kind = Distribution::Kind::kFloat;
  d.low = low;
  d.high = high;
  d.log = log;
  d.step = step;
  return d;
}

inline Distribution int_dist(double low, double high, bool log = false, std::optional<double> step = std::nullopt) {
  Distribution d = float_dist(low, high, log, step);
  d.kind = Distribution::Kind::kInt;
  return d;
}

inline Distribution cat_dist(std::vector<nlohmann::json> choices) {
  Distribution d;
  d.kind = Distribution::Kind::kCategorical;
  d.choices = std::move(choices);
  return d;
}

struct Param {
  std::string name;
  Distribution d;
};

using Objective = std::function<std::vector<double>(const Trial&)>;

// Suggests every parameter of `space` in order, evaluates `f` and records the trial as complete.
inline std::vector<Trial> run_study(Sampler& sampler, const std::vector<Param>& space, const Objective& f,
                                    int n_trials) {
  std::vector<Trial> history;
  for (int n = 0; n < n_trials; ++n) {
    Trial t;
    t.number = n;
    for (const auto& p : space) {
      t.params.emplace_back(p.name, sampler.sample(history, t, p.name, p.d));
      t.distributions[p.name] = p.d;
    }
    t.values = f(t);
    t.state = Trial::State::kComplete;
    history.push_back(std::move(t));
  }
  return history;
}

inline double best_value(const std::vector<Trial>& trials, Direction direction) {
  double best = trials.at(0).values.at(0);
  for (const auto& t : trials)
    if (better(t.values[0], best, direction)) best = t.values[0];
  return best;
}

}  // namespace runner::search::testing
