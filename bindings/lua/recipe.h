// Recipe loading: run the recipe file and turn the table it returns into C++ values the
// trainer takes (arguments, datasets, model, hooks, callbacks). Nothing here trains.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "bindings/lua/lua_state.h"
#include "runtime/core/callback.h"
#include "runtime/core/training_args.h"
#include "runtime/train/hooks.h"
#include "runtime/train/trainer.h"

namespace runner::lua {

class LuaSearchHooks;

struct Recipe {
  std::string path;
  TrainingArguments args;  // defaults < recipe `args` (command line not applied yet)
  nlohmann::json recipe_args = nlohmann::json::object();  // the recipe's own `args` table
  train::Datasets datasets;
  models::ModulePtr model;
  std::shared_ptr<train::Hooks> hooks;
  std::vector<std::shared_ptr<Callback>> callbacks;
  std::string input_name;
  data::Collator collator;  // the recipe's data_collator, if any
  bool collator_thread_safe = false;  // a built-in collator may run on data workers
  std::shared_ptr<LuaSearchHooks> search;  // hp_space, n_trials, direction, ... (runner search)
};

// Throws RecipeError / ArgumentError located at the recipe's file:line.
Recipe load_recipe(LuaState& lua, const std::string& path);

// The first line of `path` that assigns `key` ("key =" at a line start or after { or ,),
// as "path:line"; just "path" when there is none. Used to locate argument errors.
std::string locate_key(const std::string& path, const std::string& key);

// The keys a recipe table may have.
const std::vector<std::string>& recipe_keys();

}  // namespace runner::lua
