// Fuzz target: the recipe loader (bindings/lua/recipe.h) on arbitrary .lua text: a fresh
// LuaState runs the file in the recipe sandbox and load_recipe turns the returned table into
// arguments, datasets, model, hooks and callbacks (nothing trains).
//
// Guards, all in this harness (the runner itself puts no limit on recipe code):
//  - an instruction budget of about 10^6 Lua instructions per input, by a count hook that
//    raises a Lua error (so `while true do end` is an error, not a hang). The JIT is off:
//    compiled traces do not call hooks. run_recipe installs its own line hook through
//    track_lines(), which nests; turning tracking on first keeps ours in place.
//  - the sandbox root is this process's scratch folder, so data readers and module:save
//    cannot touch any other file (seeds name the files there with recipe.path);
//  - logging is off (recipes print).

#include <cstdint>
#include <cstdlib>
#include <string>

#include <lua.hpp>  // LuaJIT's: lua.h, lauxlib.h and luajit.h with C linkage

#include "bindings/lua/lua_common.h"
#include "bindings/lua/lua_state.h"
#include "bindings/lua/recipe.h"
#include "runtime/log/log.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

constexpr int kHookEvery = 1000;       // instructions between count-hook calls
constexpr int kBudgetCalls = 1000;     // about 10^6 instructions in all
int g_hook_calls = 0;

void budget_hook(lua_State* L, lua_Debug*) {
  if (++g_hook_calls > kBudgetCalls) luaL_error(L, "fuzz: instruction budget exceeded");
}

const std::string& workdir() {
  static const std::string dir = [] {
    const std::string d = runner::fuzz::scratch_dir("recipe");
    // Small files the seed recipes read, next to the recipe (recipe.path("data.jsonl")).
    const std::string jsonl = "{\"x\": [1.0, 2.0], \"labels\": 1}\n{\"x\": [0.5, -1.0], \"labels\": 0}\n";
    const std::string csv = "a,b,labels\n1,2,0\n3,4.5,1\n";
    std::string text;
    for (int i = 0; i < 8; ++i) text += "To be, or not to be, that is the question: whether 'tis nobler in the mind to suffer\n";
    runner::fuzz::write_bytes(d + "/data.jsonl", reinterpret_cast<const uint8_t*>(jsonl.data()), jsonl.size());
    runner::fuzz::write_bytes(d + "/data.csv", reinterpret_cast<const uint8_t*>(csv.data()), csv.size());
    runner::fuzz::write_bytes(d + "/input.txt", reinterpret_cast<const uint8_t*>(text.data()), text.size());
    runner::lua::set_sandbox_roots({d});
    runner::log::configure(runner::log::Level::kOff);
    return d;
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = workdir() + "/recipe.lua";
  runner::fuzz::write_bytes(path, data, size);
  runner::fuzz::expect_errors([&] {
    runner::lua::LuaState lua({}, runner::lua::default_lib_dirs());
    lua_State* L = lua.get();
    luaJIT_setmode(L, 0, LUAJIT_MODE_ENGINE | LUAJIT_MODE_OFF);
    runner::lua::track_lines(L, true);
    g_hook_calls = 0;
    lua_sethook(L, budget_hook, LUA_MASKCOUNT, kHookEvery);
    struct HookOff {
      lua_State* L;
      ~HookOff() {
        lua_sethook(L, nullptr, 0, 0);
        runner::lua::track_lines(L, false);
      }
    } off{L};
    runner::lua::Recipe recipe = runner::lua::load_recipe(lua, path);
    (void)recipe;
  });
  return 0;
}
