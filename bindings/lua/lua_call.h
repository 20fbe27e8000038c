// Calling Lua from C++ safely: a scope that restores the stack top on every exit, and a
// registry reference that is released only while its Lua state is alive.
#pragma once
#include <memory>

#include "bindings/lua/lua_common.h"

namespace runner::lua {

class StackScope {
 public:
  explicit StackScope(lua_State* L) : L_(L), top_(lua_gettop(L)) {}
  ~StackScope() { lua_settop(L_, top_); }
  StackScope(const StackScope&) = delete;
  StackScope& operator=(const StackScope&) = delete;

 private:
  lua_State* L_;
  int top_;
};

// A registry reference owned by C++ (a hook function, a callback table).
class LuaRef {
 public:
  LuaRef(lua_State* L, int idx);  // references the value at idx
  ~LuaRef();
  LuaRef(const LuaRef&) = delete;
  LuaRef& operator=(const LuaRef&) = delete;
  void push() const { lua_rawgeti(L_, LUA_REGISTRYINDEX, ref_); }
  lua_State* state() const { return L_; }

 private:
  lua_State* L_;
  int ref_;
};

// "file:line" where the function at idx is defined.
std::string defined_at(lua_State* L, int idx);

}  // namespace runner::lua
