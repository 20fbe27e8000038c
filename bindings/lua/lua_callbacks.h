// Callbacks from recipes: Lua tables of HF event functions, and the built-in callbacks of
// require "runner.callbacks" (early_stopping) as userdata.
#pragma once
#include <memory>
#include <string>

#include "bindings/lua/lua_call.h"
#include "runtime/core/callback.h"

namespace runner::lua {

// { name = "Mine", on_log = function(args, state, control, logs) ... end,
//   state = function() return {...} end, load_state = function(s) ... end }
// A table with state/load_state is a stateful callback (saved in trainer_state.json).
class LuaCallback : public Callback {
 public:
  LuaCallback(lua_State* L, int table_idx, std::string name);
  std::string name() const override { return name_; }
  void on_event(Event event, const TrainingArguments& args, const TrainerState& state, TrainerControl& control,
                const nlohmann::json& payload) override;
  bool observes_optimizer_step() const override;
  nlohmann::json state() const override;
  void load_state(const nlohmann::json& s) override;

 private:
  lua_State* L_;
  LuaRef table_;
  std::unique_ptr<LuaRef> args_;  // args as a Lua table, built once
  std::string name_;
};

constexpr const char* kCallbackMeta = "runner.Callback";
void register_callback_type(lua_State* L);
void push_callbacks_module(lua_State* L);
std::shared_ptr<Callback> test_callback(lua_State* L, int idx);  // a built-in callback userdata, or nullptr

// The event names a callback table may define (plus name, state, load_state).
const std::vector<std::string>& callback_keys();

}  // namespace runner::lua
