#include "bindings/lua/lua_module.h"

#include <set>
#include <unordered_set>

#include "bindings/lua/lua_call.h"

#include "runtime/core/errors.h"
#include "runtime/core/regex.h"

namespace runner::lua {

namespace {
std::set<lua_State*>& alive_states() {
  static std::set<lua_State*> s;
  return s;
}
}  // namespace

void set_lua_alive(lua_State* L, bool alive) {
  if (alive) alive_states().insert(L);
  else alive_states().erase(L);
}
bool lua_alive(lua_State* L) { return alive_states().count(L) != 0; }

namespace {
// Functions called from C++ at least once: their later calls run without the line hook.
std::unordered_set<const void*>& called_functions() {
  static std::unordered_set<const void*> s;
  return s;
}
bool has_location(const std::string& m) {
  static const Regex located("^[^ :]+:[0-9]+: ");
  return located.search(m);
}
}  // namespace

void pcall_or_throw(lua_State* L, int nargs, int nresults) {
  const int fn = lua_gettop(L) - nargs;
  // The first call of each function traces lines, so an error from a tail call names its
  // line; later calls run compiled (a hook turns LuaJIT's JIT off) and fall back to the
  // line where the function is defined.
  const bool first = called_functions().insert(lua_topointer(L, fn)).second;
  lua_pushvalue(L, fn);
  lua_insert(L, fn);  // a copy below the call, for defined_at on error
  if (first) track_lines(L, true);
  const int rc = lua_pcall(L, nargs, nresults, 0);
  if (first) track_lines(L, false);
  if (rc == 0) {
    lua_remove(L, fn);
    return;
  }
  std::string message = lua_isstring(L, -1) ? lua_tostring(L, -1) : std::string("(error object is a ") + luaL_typename(L, -1) + ")";
  if (!has_location(message) && lua_isfunction(L, fn) && !lua_iscfunction(L, fn)) message = defined_at(L, fn) + ": in this function: " + message;
  lua_settop(L, fn - 1);
  throw LuaError(message);
}

LuaModule::LuaModule(lua_State* L, int attrs_ref, std::string name) : Module(std::move(name)), L_(L), attrs_ref_(attrs_ref) {}

LuaModule::~LuaModule() {
  if (lua_alive(L_)) luaL_unref(L_, LUA_REGISTRYINDEX, attrs_ref_);
}

void LuaModule::push_attrs(lua_State* L) const { lua_rawgeti(L, LUA_REGISTRYINDEX, attrs_ref_); }

at::Tensor LuaModule::forward_impl(const at::Tensor& x) {
  lua_State* L = L_;
  push_attrs(L);
  lua_getfield(L, -1, "forward");
  lua_remove(L, -2);
  if (!lua_isfunction(L, -1)) {
    lua_pop(L, 1);
    throw RecipeError(type_name() + " has no forward function");
  }
  push_module(L, shared_from_this());
  push_tensor(L, x);
  pcall_or_throw(L, 2, 1);
  at::Tensor* out = test_tensor(L, -1);
  if (!out) {
    const std::string got = luaL_typename(L, -1);
    lua_pop(L, 1);
    throw RecipeError(type_name() + ":forward received a tensor and must return a tensor, got " + got);
  }
  at::Tensor result = *out;
  lua_pop(L, 1);
  return result;
}

models::TensorMap LuaModule::forward_batch_impl(const models::TensorMap& batch) {
  lua_State* L = L_;
  push_attrs(L);
  lua_getfield(L, -1, "forward");
  lua_remove(L, -2);
  if (!lua_isfunction(L, -1)) {
    lua_pop(L, 1);
    throw RecipeError(type_name() + " has no forward function");
  }
  push_module(L, shared_from_this());
  push_tensor_map(L, batch);
  pcall_or_throw(L, 2, 1);
  models::TensorMap out;
  if (at::Tensor* t = test_tensor(L, -1)) {
    out["logits"] = *t;
    lua_pop(L, 1);
    return out;
  }
  if (!lua_istable(L, -1)) {
    const std::string got = luaL_typename(L, -1);
    lua_pop(L, 1);
    throw RecipeError(type_name() + ":forward must return a tensor or a table of tensors, got " + got);
  }
  // Release the stack slot before a conversion error can be thrown.
  struct Pop {
    lua_State* L;
    ~Pop() { lua_pop(L, 1); }
  } pop{L};
  return to_tensor_map(L, -1, "forward's result");
}

void push_load_report(lua_State* L, const models::Module::LoadReport& report) {
  lua_createtable(L, 0, 2);
  for (auto [key, list] : {std::pair<const char*, const std::vector<std::string>*>{"missing_keys", &report.missing},
                           {"unexpected_keys", &report.unexpected}}) {
    lua_createtable(L, static_cast<int>(list->size()), 0);
    for (size_t i = 0; i < list->size(); ++i) {
      lua_pushstring(L, (*list)[i].c_str());
      lua_rawseti(L, -2, static_cast<int>(i + 1));
    }
    lua_setfield(L, -2, key);
  }
}

void push_tensor_map(lua_State* L, const models::TensorMap& m) {
  lua_createtable(L, 0, static_cast<int>(m.size()));
  for (const auto& [k, v] : m) {
    push_tensor(L, v);
    lua_setfield(L, -2, k.c_str());
  }
}

models::TensorMap to_tensor_map(lua_State* L, int idx, const std::string& what) {
  const int abs = idx < 0 ? lua_gettop(L) + idx + 1 : idx;
  models::TensorMap out;
  lua_pushnil(L);
  while (lua_next(L, abs)) {
    if (lua_type(L, -2) != LUA_TSTRING) {
      lua_pop(L, 2);
      throw RecipeError(what + " must be a table with named fields");
    }
    const std::string key = lua_tostring(L, -2);
    at::Tensor* t = test_tensor(L, -1);
    if (!t) {
      const std::string got = luaL_typename(L, -1);
      lua_pop(L, 2);
      throw RecipeError(what + "." + key + " must be a tensor, got " + got);
    }
    out[key] = *t;
    lua_pop(L, 1);
  }
  return out;
}

}  // namespace runner::lua
