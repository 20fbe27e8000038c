// One LuaJIT state per process: the standard libraries for the trusted prelude, the
// runner modules, and the sandboxed recipe environment (see prelude.lua).
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "bindings/lua/lua_common.h"

namespace runner::lua {

class LuaState {
 public:
  // recipe_options: --name value pairs from the command line that are not training
  // arguments; recipe.options{} picks them up. lib_dirs: where `require` looks after the
  // recipe's own folder (recipes/lib). bare_options: the recipe options given without a
  // value (true for a boolean option, "needs a value" for any other).
  LuaState(std::map<std::string, std::string> recipe_options, std::vector<std::string> lib_dirs,
           const std::set<std::string>& bare_options = {});
  ~LuaState();
  LuaState(const LuaState&) = delete;
  LuaState& operator=(const LuaState&) = delete;

  lua_State* get() const { return L_; }

  // Runs the recipe; pushes its return value. Errors (syntax, runtime) throw RecipeError
  // with the recipe's file:line.
  void run_recipe(const std::string& path, int nresults = 1);

  // Command-line --names that no recipe.options{} call declared.
  std::vector<std::string> undeclared_options() const;
  // Names declared by recipe.options{} (for `runner check` and did-you-mean).
  std::vector<std::string> declared_options() const;

 private:
  lua_State* L_;
  int run_ref_ = LUA_NOREF;
  int cfg_ref_ = LUA_NOREF;
  std::map<std::string, std::string> recipe_options_;
};

// Directories `require` searches after the recipe's folder: the source tree's recipes/lib
// (compiled in) and recipes/lib next to the installed binary.
std::vector<std::string> default_lib_dirs();

}  // namespace runner::lua
