// require "runner.dist": who this process is in a data-parallel run, for recipes that
// prepare data once (main_process_first) or log per rank. A single process is rank 0 of 1.
#include "bindings/lua/lua_common.h"
#include "runtime/dist/communicator.h"
#include "runtime/dist/world.h"

namespace runner::lua {

namespace {

// dist.main_process_first(fn [, {per_node = true}]): the main process (of each node with
// per_node, HF's local=True default) runs fn first; the others wait for it, then run fn
// themselves, so a cache fn writes is built once and read by the rest. Returns fn's first
// result. HF's name `local` is a Lua keyword, so it is accepted only as {["local"] = ...}.
int main_process_first(lua_State* L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  bool local = true;
  if (lua_istable(L, 2)) {
    for (const char* key : {"per_node", "local"}) {
      lua_getfield(L, 2, key);
      if (!lua_isnil(L, -1)) local = lua_toboolean(L, -1);
      lua_pop(L, 1);
    }
  }
  const dist::World& w = dist::world();
  const bool first = local ? w.local_rank == 0 : w.rank == 0;
  auto comm = dist::world_communicator();
  if (!first) comm->barrier();
  lua_pushvalue(L, 1);
  lua_call(L, 0, 1);  // a Lua error propagates; the job is then aborted by the CLI
  if (first) comm->barrier();
  return 1;
}

}  // namespace

void push_dist_module(lua_State* L) {
  const dist::World& w = dist::world();
  lua_newtable(L);
  const std::pair<const char*, int> fields[] = {{"rank", w.rank},
                                                {"world_size", w.size},
                                                {"local_rank", w.local_rank},
                                                {"local_world_size", w.local_size},
                                                {"node_rank", w.node_rank},
                                                {"num_nodes", w.num_nodes}};
  for (const auto& [name, value] : fields) {
    lua_pushinteger(L, value);
    lua_setfield(L, -2, name);
  }
  lua_pushboolean(L, w.rank == 0);
  lua_setfield(L, -2, "is_main_process");
  lua_pushboolean(L, w.local_rank == 0);
  lua_setfield(L, -2, "is_local_main_process");
  lua_pushcfunction(L, guarded<main_process_first>);
  lua_setfield(L, -2, "main_process_first");
}

}  // namespace runner::lua
