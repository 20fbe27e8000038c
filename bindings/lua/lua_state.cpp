#include "bindings/lua/lua_state.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "bindings/lua/data_binding.h"
#include "bindings/lua/lua_callbacks.h"
#include "bindings/lua/lua_module.h"
#include "bindings/lua/builtin_losses.h"
#include "runtime/core/errors.h"
#include "runtime/core/training_args.h"
#include "runtime/log/log.h"

namespace runner::lua {

extern const char* const kPreludeLua;  // generated from prelude.lua

void register_tensor_type(lua_State* L);
void register_module_type(lua_State* L);
void register_dataset_type(lua_State* L);
void push_torch_module(lua_State* L);
void push_functional_module(lua_State* L);
void push_nn_module(lua_State* L);
void push_data_module(lua_State* L);
void push_models_module(lua_State* L);
void push_dist_module(lua_State* L);

namespace {

// print(...) → the runner's logger, so recipe output carries the same prefix and rank.
int lua_print(lua_State* L) {
  std::string line;
  const int n = lua_gettop(L);
  lua_getglobal(L, "tostring");
  for (int i = 1; i <= n; ++i) {
    lua_pushvalue(L, -1);
    lua_pushvalue(L, i);
    lua_call(L, 1, 1);
    const char* s = lua_tostring(L, -1);
    if (i > 1) line += '\t';
    line += s ? s : "";
    lua_pop(L, 1);
  }
  log::info(line);
  return 0;
}

}  // namespace

std::vector<std::string> default_lib_dirs() {
  std::vector<std::string> dirs{std::string(RUNNER_SOURCE_DIR) + "/recipes/lib"};
  char exe[4096];
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = '\0';
    const auto bin = std::filesystem::path(exe).parent_path();
    for (const auto& candidate : {bin / "../recipes/lib", bin / "../share/runner/recipes/lib"}) {
      std::error_code ec;
      const auto canon = std::filesystem::weakly_canonical(candidate, ec).string();
      if (!ec && std::filesystem::is_directory(canon) && canon != dirs.front()) dirs.push_back(canon);
    }
  }
  return dirs;
}

LuaState::LuaState(std::map<std::string, std::string> recipe_options, std::vector<std::string> lib_dirs,
                   const std::set<std::string>& bare_options)
    : L_(luaL_newstate()), recipe_options_(std::move(recipe_options)) {
  if (!L_) throw std::runtime_error("cannot create a Lua state");
  set_lua_alive(L_, true);
  luaL_openlibs(L_);
  register_tensor_type(L_);
  register_module_type(L_);
  register_dataset_type(L_);
  register_builtin_loss_type(L_);
  register_callback_type(L_);

  // cfg for the prelude: modules, lib dirs, print, command-line options, argument names.
  lua_newtable(L_);
  lua_newtable(L_);
  push_torch_module(L_);
  lua_setfield(L_, -2, "runner.torch");
  push_nn_module(L_);
  lua_setfield(L_, -2, "runner.nn");
  push_functional_module(L_);
  lua_setfield(L_, -2, "runner.F");
  push_data_module(L_);
  lua_setfield(L_, -2, "runner.data");
  push_models_module(L_);
  lua_setfield(L_, -2, "runner.models");
  push_dist_module(L_);
  lua_setfield(L_, -2, "runner.dist");
  push_callbacks_module(L_);
  lua_setfield(L_, -2, "runner.callbacks");
  lua_setfield(L_, -2, "modules");
  lua_createtable(L_, static_cast<int>(lib_dirs.size()), 0);
  for (size_t i = 0; i < lib_dirs.size(); ++i) {
    lua_pushstring(L_, lib_dirs[i].c_str());
    lua_rawseti(L_, -2, static_cast<int>(i + 1));
  }
  lua_setfield(L_, -2, "lib_dirs");
  lua_pushcfunction(L_, lua_print);
  lua_setfield(L_, -2, "print");
  lua_newtable(L_);
  for (const auto& [k, v] : recipe_options_) {
    lua_pushstring(L_, v.c_str());
    lua_setfield(L_, -2, k.c_str());
  }
  lua_setfield(L_, -2, "cli_options");
  lua_newtable(L_);
  for (const auto& k : bare_options) {
    lua_pushboolean(L_, 1);
    lua_setfield(L_, -2, k.c_str());
  }
  lua_setfield(L_, -2, "bare_options");
  lua_newtable(L_);
  for (const auto& f : arg_fields()) {
    lua_pushboolean(L_, 1);
    lua_setfield(L_, -2, f.name);
  }
  lua_setfield(L_, -2, "arg_names");
  lua_newtable(L_);
  lua_setfield(L_, -2, "declared");
  lua_pushvalue(L_, -1);
  cfg_ref_ = luaL_ref(L_, LUA_REGISTRYINDEX);

  if (luaL_loadbuffer(L_, kPreludeLua, std::strlen(kPreludeLua), "=prelude") != 0)
    throw std::runtime_error(std::string("prelude: ") + lua_tostring(L_, -1));
  lua_insert(L_, -2);
  if (lua_pcall(L_, 1, 1, 0) != 0) throw std::runtime_error(std::string("prelude: ") + lua_tostring(L_, -1));
  run_ref_ = luaL_ref(L_, LUA_REGISTRYINDEX);
}

LuaState::~LuaState() {
  set_lua_alive(L_, false);
  lua_close(L_);
}

void LuaState::run_recipe(const std::string& path, int nresults) {
  if (::access(path.c_str(), R_OK) != 0) throw RecipeError("cannot read the recipe: " + std::string(std::strerror(errno)), path);
  lua_rawgeti(L_, LUA_REGISTRYINDEX, run_ref_);
  lua_pushstring(L_, path.c_str());
  track_lines(L_, true);  // loading runs once: every error names its exact line
  const int rc = lua_pcall(L_, 1, nresults, 0);
  const std::string at = last_line();  // before tracking stops and forgets it
  track_lines(L_, false);
  if (rc != 0) {
    // error(nil) or error{...} carries no position: the traced line gives it one.
    std::string message = lua_isstring(L_, -1) ? lua_tostring(L_, -1)
                                               : (at.empty() ? path : at) + ": error() raised a " + luaL_typename(L_, -1) + ", not a message";
    lua_pop(L_, 1);
    throw RecipeError(message);
  }
}

std::vector<std::string> LuaState::declared_options() const {
  std::vector<std::string> out;
  lua_rawgeti(L_, LUA_REGISTRYINDEX, cfg_ref_);
  lua_getfield(L_, -1, "declared");
  lua_pushnil(L_);
  while (lua_next(L_, -2)) {
    lua_pop(L_, 1);
    out.emplace_back(lua_tostring(L_, -1));
  }
  lua_pop(L_, 2);
  return out;
}

std::vector<std::string> LuaState::undeclared_options() const {
  const auto declared = declared_options();
  std::vector<std::string> out;
  for (const auto& [k, v] : recipe_options_)
    if (std::find(declared.begin(), declared.end(), k) == declared.end()) out.push_back(k);
  return out;
}

}  // namespace runner::lua
