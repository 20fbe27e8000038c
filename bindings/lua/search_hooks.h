// The recipe's hyperparameter-search fields (HF's Trainer.hyperparameter_search arguments
// as recipe keys): hp_space(trial) → { argument = value, ... }, n_trials, direction
// ("minimize" / "maximize", or a list of them for several objectives), compute_objective(
// metrics) → a number (or one per direction), plus runner's hp_sampler ("tpe", "random",
// "grid"), hp_seed and hp_pruner ("median", "none"). The `trial` hp_space receives has
// optuna's suggest_float / suggest_int / suggest_categorical and `number`.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bindings/lua/lua_call.h"
#include "runtime/search/trial.h"

namespace runner::lua {

struct SearchSettings {
  int n_trials = 20;  // HF's default
  std::vector<search::Direction> directions{search::Direction::kMinimize};
  std::string sampler = "tpe";  // optuna's default sampler
  std::optional<uint64_t> seed;  // default: args.seed
  std::string pruner = "median";  // optuna's default pruner
};

class LuaSearchHooks {
 public:
  // `table_idx`: the recipe table. Reads and checks the search keys (RecipeError at their line).
  LuaSearchHooks(lua_State* L, int table_idx, std::string path);
  // Whether the recipe declares hp_space (runner search needs it).
  bool has_space() const { return space_ != nullptr; }
  const SearchSettings& settings() const { return settings_; }

  // Asked for each suggestion: the value of parameter `name` drawn from `d`.
  using Suggest = std::function<nlohmann::json(const std::string& name, const search::Distribution& d)>;
  // Calls hp_space(trial); returns its table as JSON (argument name → value).
  nlohmann::json space(int trial_number, const Suggest& suggest) const;
  // compute_objective(metrics), or HF's default_compute_objective: eval_loss when it is the
  // only metric, else the sum of the metrics that are not loss, epoch or speed. One value
  // per direction.
  std::vector<double> objective(const nlohmann::json& metrics) const;

 private:
  lua_State* L_;
  std::string path_;
  SearchSettings settings_;
  std::unique_ptr<LuaRef> space_, objective_;
  std::string space_at_, objective_at_;
};

// The recipe keys that belong to the search.
const std::vector<std::string>& search_keys();

}  // namespace runner::lua
