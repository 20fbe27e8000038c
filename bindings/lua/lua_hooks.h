// Lua implementations of the trainer's Hooks and Callback interfaces. Each call from C++
// into Lua leaves the Lua stack exactly as it found it (checked in debug builds and by
// tests/bindings/test_stack_balance.cpp); a Lua error becomes a HookError carrying the
// recipe's file:line.
#pragma once
#include <map>
#include <memory>
#include <string>

#include "bindings/lua/lua_common.h"
#include "runtime/core/callback.h"
#include "runtime/train/hooks.h"

namespace runner::lua {

class LuaHooks : public train::Hooks {
 public:
  // `table_idx`: the recipe table; hook functions are looked up by their HF names.
  LuaHooks(lua_State* L, int table_idx, std::string origin);
  ~LuaHooks() override;
  std::optional<train::LossResult> compute_loss(models::Module& model, const train::Batch& inputs, train::LossContext& ctx) override;
  std::string origin() const override { return origin_; }
  bool has(const std::string& hook) const { return refs_.count(hook) != 0; }

 private:
  bool push_hook(const std::string& name) const;  // pushes the function if defined
  lua_State* L_;
  std::map<std::string, int> refs_;
  std::map<std::string, std::string> where_;  // file:line where each hook is defined
  std::string origin_;
};

// A callback table { on_log = function(args, state, control, logs) ... end, ... }.
class LuaCallback : public Callback {
 public:
  LuaCallback(lua_State* L, int table_idx, std::string name);
  ~LuaCallback() override;
  std::string name() const override { return name_; }
  void on_event(Event event, const TrainingArguments& args, const TrainerState& state, TrainerControl& control,
                const nlohmann::json& payload) override;

 private:
  lua_State* L_;
  int ref_;
  int args_ref_ = LUA_NOREF;  // args as a Lua table, built once
  std::string name_;
};

// The hook names a recipe may define (HF method names).
const std::vector<std::string>& hook_names();

}  // namespace runner::lua
