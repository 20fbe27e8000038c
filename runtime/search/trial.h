// The vocabulary of a hyperparameter search: objective directions, the distribution a parameter is
// drawn from and the record of one trial. Pure data so that samplers, pruners and the Lua binding
// share one representation without pulling in LibTorch or Lua.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace runner::search {

enum class Direction { kMinimize, kMaximize };

// "minimize"/"maximize" (also "min"/"max", any case); anything else throws std::invalid_argument.
Direction parse_direction(const std::string& s);
const char* direction_name(Direction d);  // "minimize" / "maximize"

// True when `a` is strictly better than `b` in direction `d` (NaN is never better).
inline bool better(double a, double b, Direction d) { return d == Direction::kMinimize ? a < b : a > b; }

struct Distribution {
  enum class Kind { kFloat, kInt, kCategorical };
  Kind kind = Kind::kFloat;
  double low = 0, high = 0;             // float/int: inclusive bounds
  bool log = false;                     // sample in log space (low > 0 required)
  std::optional<double> step;           // float/int: grid step (int default 1)
  std::vector<nlohmann::json> choices;  // categorical (numbers, strings, booleans)

  // Throws std::invalid_argument naming `name` and the problem, so a recipe error points at the
  // parameter the user wrote rather than at whichever sampler noticed it first.
  void check(const std::string& name) const;
  bool operator==(const Distribution& other) const;
  bool operator!=(const Distribution& other) const { return !(*this == other); }
};

struct Trial {
  enum class State { kRunning, kComplete, kPruned, kFailed };
  int number = 0;
  State state = State::kRunning;
  std::vector<std::pair<std::string, nlohmann::json>> params;  // in suggestion order
  std::map<std::string, Distribution> distributions;
  std::vector<double> values;              // objective value(s), set when complete
  std::map<int64_t, double> intermediate;  // step -> reported intermediate objective (single objective)

  const nlohmann::json* param(const std::string& name) const;  // nullptr when absent
};

const char* state_name(Trial::State s);  // "complete", "pruned", "failed", "running"

}  // namespace runner::search
