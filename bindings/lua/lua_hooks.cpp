#include "bindings/lua/lua_hooks.h"

#include <cassert>

#include "bindings/lua/lua_module.h"
#include "runtime/core/errors.h"

namespace runner::lua {

namespace {

// Restores the stack top on every exit path of a C++ → Lua call.
class StackScope {
 public:
  explicit StackScope(lua_State* L) : L_(L), top_(lua_gettop(L)) {}
  ~StackScope() { lua_settop(L_, top_); }

 private:
  lua_State* L_;
  int top_;
};

[[noreturn]] void rethrow_as_hook_error(const LuaError& e) { throw HookError(e.what()); }

void push_state(lua_State* L, const TrainerState& s) {
  lua_createtable(L, 0, 8);
  lua_pushnumber(L, static_cast<double>(s.global_step));
  lua_setfield(L, -2, "global_step");
  lua_pushnumber(L, s.epoch);
  lua_setfield(L, -2, "epoch");
  lua_pushnumber(L, static_cast<double>(s.max_steps));
  lua_setfield(L, -2, "max_steps");
  lua_pushnumber(L, static_cast<double>(s.num_train_epochs));
  lua_setfield(L, -2, "num_train_epochs");
  lua_pushnumber(L, s.total_flos);
  lua_setfield(L, -2, "total_flos");
  if (s.best_metric) {
    lua_pushnumber(L, *s.best_metric);
    lua_setfield(L, -2, "best_metric");
  }
  if (s.best_model_checkpoint) {
    lua_pushstring(L, s.best_model_checkpoint->c_str());
    lua_setfield(L, -2, "best_model_checkpoint");
  }
  lua_pushboolean(L, s.is_world_process_zero);
  lua_setfield(L, -2, "is_world_process_zero");
  lua_pushboolean(L, s.is_local_process_zero);
  lua_setfield(L, -2, "is_local_process_zero");
}

const char* const kFlags[] = {"should_training_stop", "should_epoch_stop", "should_save", "should_evaluate", "should_log"};

bool* flag(TrainerControl& c, int i) {
  bool* flags[] = {&c.should_training_stop, &c.should_epoch_stop, &c.should_save, &c.should_evaluate, &c.should_log};
  return flags[i];
}

}  // namespace

const std::vector<std::string>& hook_names() {
  static const std::vector<std::string> names{"compute_loss"};
  return names;
}

LuaHooks::LuaHooks(lua_State* L, int table_idx, std::string origin) : L_(L), origin_(std::move(origin)) {
  const int abs = table_idx < 0 ? lua_gettop(L) + table_idx + 1 : table_idx;
  for (const auto& name : hook_names()) {
    lua_getfield(L, abs, name.c_str());
    if (lua_isnil(L, -1)) {
      lua_pop(L, 1);
      continue;
    }
    if (!lua_isfunction(L, -1)) {
      const std::string got = luaL_typename(L, -1);
      lua_pop(L, 1);
      throw RecipeError(name + " must be a function, got " + got);
    }
    lua_Debug ar;
    lua_pushvalue(L, -1);
    lua_getinfo(L, ">S", &ar);
    where_[name] = std::string(ar.short_src) + ":" + std::to_string(ar.linedefined);
    refs_[name] = luaL_ref(L, LUA_REGISTRYINDEX);
  }
}

LuaHooks::~LuaHooks() {
  if (!lua_alive(L_)) return;
  for (auto& [name, ref] : refs_) luaL_unref(L_, LUA_REGISTRYINDEX, ref);
}

bool LuaHooks::push_hook(const std::string& name) const {
  auto it = refs_.find(name);
  if (it == refs_.end()) return false;
  lua_rawgeti(L_, LUA_REGISTRYINDEX, it->second);
  return true;
}

// compute_loss(model, inputs, ctx) → loss[, outputs]
std::optional<train::LossResult> LuaHooks::compute_loss(models::Module& model, const train::Batch& inputs, train::LossContext& ctx) {
  lua_State* L = L_;
  StackScope scope(L);
  if (!push_hook("compute_loss")) return std::nullopt;
  push_module(L, model.shared_from_this());
  push_tensor_map(L, inputs);
  lua_createtable(L, 0, 4);
  const int ctx_idx = lua_gettop(L);
  lua_pushnumber(L, static_cast<double>(ctx.num_items_in_batch));
  lua_setfield(L, ctx_idx, "num_items_in_batch");
  lua_pushnumber(L, static_cast<double>(ctx.micro_items));
  lua_setfield(L, ctx_idx, "micro_items");
  lua_pushboolean(L, ctx.loss_is_normalized);
  lua_setfield(L, ctx_idx, "loss_is_normalized");
  lua_pushboolean(L, ctx.training);
  lua_setfield(L, ctx_idx, "training");
  lua_pushvalue(L, ctx_idx);
  lua_insert(L, -5);  // keep a copy of ctx below the call to read flags back
  try {
    pcall_or_throw(L, 3, 2);
  } catch (const LuaError& e) {
    rethrow_as_hook_error(e);
  }
  train::LossResult r;
  at::Tensor* loss = test_tensor(L, -2);
  if (!loss) throw HookError("compute_loss must return a loss tensor, got " + std::string(luaL_typename(L, -2)), where_["compute_loss"]);
  r.loss = *loss;
  if (at::Tensor* out = test_tensor(L, -1)) r.outputs["logits"] = *out;
  else if (lua_istable(L, -1)) r.outputs = to_tensor_map(L, -1, "compute_loss's outputs");
  else if (!lua_isnil(L, -1)) throw HookError("compute_loss's second result must be a table of tensors or a tensor", where_["compute_loss"]);
  lua_getfield(L, -3, "loss_is_normalized");
  ctx.loss_is_normalized = lua_toboolean(L, -1) != 0;
  return r;
}

LuaCallback::LuaCallback(lua_State* L, int table_idx, std::string name) : L_(L), name_(std::move(name)) {
  lua_pushvalue(L, table_idx);
  ref_ = luaL_ref(L, LUA_REGISTRYINDEX);
}

LuaCallback::~LuaCallback() {
  if (!lua_alive(L_)) return;
  luaL_unref(L_, LUA_REGISTRYINDEX, ref_);
  luaL_unref(L_, LUA_REGISTRYINDEX, args_ref_);
}

void LuaCallback::on_event(Event event, const TrainingArguments& args, const TrainerState& state, TrainerControl& control,
                           const nlohmann::json& payload) {
  lua_State* L = L_;
  StackScope scope(L);
  lua_rawgeti(L, LUA_REGISTRYINDEX, ref_);
  lua_getfield(L, -1, event_name(event));
  if (lua_isnil(L, -1)) return;
  if (!lua_isfunction(L, -1)) throw HookError(name_ + "." + event_name(event) + " must be a function");
  if (args_ref_ == LUA_NOREF) {
    push_json(L, args.to_json());
    args_ref_ = luaL_ref(L, LUA_REGISTRYINDEX);
  }
  lua_rawgeti(L, LUA_REGISTRYINDEX, args_ref_);
  push_state(L, state);
  lua_createtable(L, 0, 5);
  const int control_idx = lua_gettop(L);
  for (int i = 0; i < 5; ++i) {
    lua_pushboolean(L, *flag(control, i));
    lua_setfield(L, control_idx, kFlags[i]);
  }
  lua_pushvalue(L, control_idx);
  lua_insert(L, -5);  // a copy below the function: flags are read back after the call
  push_json(L, payload);
  try {
    pcall_or_throw(L, 4, 1);
  } catch (const LuaError& e) {
    rethrow_as_hook_error(e);
  }
  // A callback may mutate control in place or return a control table (HF allows both).
  const int source = lua_istable(L, -1) ? lua_gettop(L) : lua_gettop(L) - 1;
  for (int i = 0; i < 5; ++i) {
    lua_getfield(L, source, kFlags[i]);
    *flag(control, i) = lua_toboolean(L, -1) != 0;
    lua_pop(L, 1);
  }
}

}  // namespace runner::lua
