#include "bindings/lua/lua_call.h"

#include "bindings/lua/lua_module.h"

namespace runner::lua {

LuaRef::LuaRef(lua_State* L, int idx) : L_(L) {
  lua_pushvalue(L, idx);
  ref_ = luaL_ref(L, LUA_REGISTRYINDEX);
}

LuaRef::~LuaRef() {
  if (lua_alive(L_)) luaL_unref(L_, LUA_REGISTRYINDEX, ref_);
}

std::string defined_at(lua_State* L, int idx) {
  lua_Debug ar;
  lua_pushvalue(L, idx);
  lua_getinfo(L, ">S", &ar);
  return std::string(ar.short_src) + ":" + std::to_string(ar.linedefined);
}

}  // namespace runner::lua
