#include "bindings/lua/search_hooks.h"

#include <cmath>

#include "bindings/lua/lua_module.h"
#include "runtime/core/errors.h"

namespace runner::lua {

using nlohmann::json;

const std::vector<std::string>& search_keys() {
  static const std::vector<std::string> keys{"hp_space", "n_trials", "direction", "compute_objective", "hp_sampler", "hp_seed", "hp_pruner"};
  return keys;
}

namespace {

// The suggester of the hp_space call under way; a trial object used outside that call (kept
// by the recipe) finds none and says so instead of reaching a finished trial.
const LuaSearchHooks::Suggest* g_suggest = nullptr;
int g_trial = -1;

const LuaSearchHooks::Suggest& active(lua_State* L) {
  lua_getfield(L, 1, "number");
  const int number = lua_istable(L, 1) ? static_cast<int>(lua_tointeger(L, -1)) : -2;
  lua_pop(L, 1);
  if (!g_suggest || number != g_trial) luaL_error(L, "trial:suggest_* works only inside hp_space, on the trial it was given (use trial:suggest_float(...), with a colon)");
  return *g_suggest;
}

std::string name_arg(lua_State* L) {
  if (lua_type(L, 2) != LUA_TSTRING) luaL_error(L, "the parameter's name must be a string");
  return lua_tostring(L, 2);
}

// Runs the C++ suggester; its errors become Lua errors at the recipe's line.
int suggest(lua_State* L, const std::string& name, const search::Distribution& d) {
  const auto& s = active(L);
  json v;
  try {
    d.check(name);
    v = s(name, d);
  } catch (const std::exception& e) {
    return luaL_error(L, "%s", e.what());
  }
  push_json(L, v);
  return 1;
}

void read_range(lua_State* L, search::Distribution& d, const char* what) {
  if (!lua_isnumber(L, 3) || !lua_isnumber(L, 4)) luaL_error(L, "%s(name, low, high [, {log =, step =}]): low and high must be numbers", what);
  d.low = lua_tonumber(L, 3);
  d.high = lua_tonumber(L, 4);
  if (lua_istable(L, 5)) {
    lua_getfield(L, 5, "log");
    d.log = lua_toboolean(L, -1) != 0;
    lua_getfield(L, 5, "step");
    if (lua_isnumber(L, -1)) d.step = lua_tonumber(L, -1);
    else if (!lua_isnil(L, -1)) luaL_error(L, "%s: step must be a number", what);
    lua_pop(L, 2);
  } else if (!lua_isnoneornil(L, 5)) {
    luaL_error(L, "%s: the options must be a table ({log = true, step = 0.1})", what);
  }
}

int suggest_float(lua_State* L) {
  search::Distribution d;
  d.kind = search::Distribution::Kind::kFloat;
  const std::string name = name_arg(L);
  read_range(L, d, "suggest_float");
  return suggest(L, name, d);
}

int suggest_int(lua_State* L) {
  search::Distribution d;
  d.kind = search::Distribution::Kind::kInt;
  const std::string name = name_arg(L);
  read_range(L, d, "suggest_int");
  if (d.low != std::floor(d.low) || d.high != std::floor(d.high)) luaL_error(L, "suggest_int: low and high must be integers");
  return suggest(L, name, d);
}

int suggest_categorical(lua_State* L) {
  search::Distribution d;
  d.kind = search::Distribution::Kind::kCategorical;
  const std::string name = name_arg(L);
  if (!lua_istable(L, 3)) luaL_error(L, "suggest_categorical(name, choices): choices must be a list");
  const json choices = to_json(L, 3, "choices");
  if (!choices.is_array()) luaL_error(L, "suggest_categorical(name, choices): choices must be a list");
  for (const auto& c : choices) {
    if (!c.is_number() && !c.is_string() && !c.is_boolean()) luaL_error(L, "suggest_categorical: choices must be numbers, strings or booleans");
    d.choices.push_back(c);
  }
  return suggest(L, name, d);
}

}  // namespace

LuaSearchHooks::LuaSearchHooks(lua_State* L, int table_idx, std::string path) : L_(L), path_(std::move(path)) {
  const int t = table_idx < 0 ? lua_gettop(L) + table_idx + 1 : table_idx;
  StackScope scope(L);
  auto field = [&](const char* k) {
    lua_getfield(L, t, k);
    return !lua_isnil(L, -1);
  };
  auto fail = [&](const std::string& key, const std::string& message) { throw RecipeError(key + ": " + message, path_); };
  if (field("hp_space")) {
    if (!lua_isfunction(L, -1)) fail("hp_space", "must be a function(trial) returning a table of argument values");
    space_at_ = defined_at(L, -1);
    space_ = std::make_unique<LuaRef>(L, -1);
  }
  lua_pop(L, 1);
  if (field("compute_objective")) {
    if (!lua_isfunction(L, -1)) fail("compute_objective", "must be a function(metrics) returning a number");
    objective_at_ = defined_at(L, -1);
    objective_ = std::make_unique<LuaRef>(L, -1);
  }
  lua_pop(L, 1);
  if (field("n_trials")) {
    if (!lua_isnumber(L, -1) || lua_tonumber(L, -1) < 1 || lua_tonumber(L, -1) != std::floor(lua_tonumber(L, -1)) || lua_tonumber(L, -1) > 1e6)
      fail("n_trials", "must be a whole number from 1 to 1000000");
    settings_.n_trials = static_cast<int>(lua_tonumber(L, -1));
  }
  lua_pop(L, 1);
  if (field("direction")) {
    std::vector<std::string> names;
    if (lua_type(L, -1) == LUA_TSTRING) {
      names.emplace_back(lua_tostring(L, -1));
    } else if (lua_istable(L, -1)) {
      for (int i = 1;; ++i) {
        lua_rawgeti(L, -1, i);
        if (lua_isnil(L, -1)) {
          lua_pop(L, 1);
          break;
        }
        if (lua_type(L, -1) != LUA_TSTRING) fail("direction", "a list of \"minimize\" / \"maximize\"");
        names.emplace_back(lua_tostring(L, -1));
        lua_pop(L, 1);
      }
    }
    if (names.empty()) fail("direction", "\"minimize\", \"maximize\", or a list of them (one per objective)");
    settings_.directions.clear();
    for (const auto& n : names) {
      try {
        settings_.directions.push_back(search::parse_direction(n));
      } catch (const std::exception& e) {
        fail("direction", e.what());
      }
    }
  }
  lua_pop(L, 1);
  if (field("hp_sampler")) {
    const std::string s = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
    if (s != "tpe" && s != "random" && s != "grid") fail("hp_sampler", "\"tpe\", \"random\" or \"grid\"");
    settings_.sampler = s;
  }
  lua_pop(L, 1);
  if (field("hp_pruner")) {
    const std::string s = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
    if (s != "median" && s != "none") fail("hp_pruner", "\"median\" or \"none\"");
    settings_.pruner = s;
  }
  lua_pop(L, 1);
  if (field("hp_seed")) {
    if (!lua_isnumber(L, -1) || lua_tonumber(L, -1) < 0 || lua_tonumber(L, -1) != std::floor(lua_tonumber(L, -1)))
      fail("hp_seed", "must be a whole number >= 0");
    settings_.seed = static_cast<uint64_t>(lua_tonumber(L, -1));
  }
  lua_pop(L, 1);
}

json LuaSearchHooks::space(int trial_number, const Suggest& suggest) const {
  StackScope scope(L_);
  if (!space_) throw RecipeError("the recipe has no hp_space (runner search needs hp_space = function(trial) return {...} end)", path_);
  space_->push();
  lua_createtable(L_, 0, 4);
  lua_pushinteger(L_, trial_number);
  lua_setfield(L_, -2, "number");
  const std::pair<const char*, lua_CFunction> methods[] = {
      {"suggest_float", suggest_float}, {"suggest_int", suggest_int}, {"suggest_categorical", suggest_categorical}};
  for (const auto& [name, fn] : methods) {
    lua_pushcfunction(L_, fn);
    lua_setfield(L_, -2, name);
  }
  g_suggest = &suggest;
  g_trial = trial_number;
  struct Reset {
    ~Reset() {
      g_suggest = nullptr;
      g_trial = -1;
    }
  } reset;
  try {
    pcall_or_throw(L_, 1, 1);
  } catch (const LuaError& e) {
    throw HookError(std::string("hp_space: ") + e.what());
  }
  if (!lua_istable(L_, -1)) throw HookError(std::string("hp_space must return a table of argument values, got ") + luaL_typename(L_, -1), space_at_);
  json out = to_json(L_, -1, "hp_space");
  if (out.is_array() && out.empty()) out = json::object();
  if (!out.is_object()) throw HookError("hp_space must return a table of argument names to values", space_at_);
  return out;
}

std::vector<double> LuaSearchHooks::objective(const json& metrics) const {
  const size_t n = settings_.directions.size();
  if (!objective_) {
    // HF default_compute_objective.
    json rest = metrics;
    const json loss = rest.contains("eval_loss") ? rest["eval_loss"] : json();
    rest.erase("eval_loss");
    rest.erase("epoch");
    double sum = 0;
    int counted = 0;
    for (auto it = rest.begin(); it != rest.end(); ++it) {
      const std::string& k = it.key();
      auto ends = [&k](const std::string& s) { return k.size() >= s.size() && k.compare(k.size() - s.size(), s.size(), s) == 0; };
      if (ends("_runtime") || ends("_per_second") || ends("_compilation_time") || !it->is_number()) continue;
      sum += it->get<double>();
      ++counted;
    }
    if (n != 1) throw RecipeError("several directions need a compute_objective that returns one value per direction", path_);
    if (counted) return {sum};
    if (!loss.is_number()) throw RecipeError("no objective: the evaluation gave no eval_loss and no metrics (give compute_objective, or evaluation data)", path_);
    return {loss.get<double>()};
  }
  StackScope scope(L_);
  objective_->push();
  push_json(L_, metrics);
  try {
    pcall_or_throw(L_, 1, 1);
  } catch (const LuaError& e) {
    throw HookError(std::string("compute_objective: ") + e.what());
  }
  std::vector<double> values;
  if (lua_isnumber(L_, -1)) {
    values.push_back(lua_tonumber(L_, -1));
  } else if (lua_istable(L_, -1)) {
    for (int i = 1;; ++i) {
      lua_rawgeti(L_, -1, i);
      if (lua_isnil(L_, -1)) break;
      if (!lua_isnumber(L_, -1)) throw HookError("compute_objective must return numbers", objective_at_);
      values.push_back(lua_tonumber(L_, -1));
      lua_pop(L_, 1);
    }
  } else {
    throw HookError(std::string("compute_objective must return a number (or a list, one per direction), got ") + luaL_typename(L_, -1), objective_at_);
  }
  if (values.size() != n)
    throw HookError("compute_objective returned " + std::to_string(values.size()) + " values for " + std::to_string(n) + " directions", objective_at_);
  return values;
}

}  // namespace runner::lua
