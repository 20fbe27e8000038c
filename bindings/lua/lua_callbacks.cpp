#include "bindings/lua/lua_callbacks.h"

#include <algorithm>

#include "bindings/lua/lua_module.h"
#include "runtime/core/did_you_mean.h"
#include "runtime/core/errors.h"
#include "runtime/train/builtin_callbacks.h"

namespace runner::lua {

namespace {

void push_state(lua_State* L, const TrainerState& s) {
  lua_createtable(L, 0, 10);
  auto num = [&](const char* k, double v) {
    lua_pushnumber(L, v);
    lua_setfield(L, -2, k);
  };
  num("global_step", static_cast<double>(s.global_step));
  num("epoch", s.epoch);
  num("max_steps", static_cast<double>(s.max_steps));
  num("num_train_epochs", static_cast<double>(s.num_train_epochs));
  num("total_flos", s.total_flos);
  num("num_input_tokens_seen", static_cast<double>(s.num_input_tokens_seen));
  if (s.best_metric) num("best_metric", *s.best_metric);
  if (s.best_global_step) num("best_global_step", static_cast<double>(*s.best_global_step));
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

[[noreturn]] void rethrow(const LuaError& e) { throw HookError(e.what()); }

struct CallbackBox {
  std::shared_ptr<Callback> cb;
};
int callback_gc(lua_State* L) {
  static_cast<CallbackBox*>(lua_touserdata(L, 1))->~CallbackBox();
  return 0;
}
int callback_tostring(lua_State* L) {
  auto cb = test_callback(L, 1);
  lua_pushstring(L, cb ? cb->name().c_str() : "Callback");
  return 1;
}
void push_callback(lua_State* L, std::shared_ptr<Callback> cb) {
  void* mem = lua_newuserdata(L, sizeof(CallbackBox));
  new (mem) CallbackBox{std::move(cb)};
  luaL_getmetatable(L, kCallbackMeta);
  lua_setmetatable(L, -2);
}

// callbacks.early_stopping{ patience = 3, threshold = 0.0 }  (HF EarlyStoppingCallback)
int cb_early_stopping(lua_State* L) {
  Options o(L, 1, "callbacks.early_stopping");
  const int64_t patience = o.integer("patience", 1);
  const double threshold = o.number("threshold", 0.0);
  o.finish();
  push_callback(L, train::make_early_stopping_callback(patience, threshold));
  return 1;
}

}  // namespace

const std::vector<std::string>& callback_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> v{"name", "state", "load_state"};
    for (int e = 0; e <= static_cast<int>(Event::kPredictionStep); ++e) v.emplace_back(event_name(static_cast<Event>(e)));
    return v;
  }();
  return keys;
}

LuaCallback::LuaCallback(lua_State* L, int table_idx, std::string name) : L_(L), table_(L, table_idx), name_(std::move(name)) {}

bool LuaCallback::observes_optimizer_step() const {
  lua_State* L = L_;
  StackScope scope(L);
  table_.push();
  for (const Event e : {Event::kPreOptimizerStep, Event::kOptimizerStep}) {
    lua_getfield(L, -1, event_name(e));
    const bool defined = !lua_isnil(L, -1);
    lua_pop(L, 1);
    if (defined) return true;
  }
  return false;
}

namespace {

// The flags the table at idx names (a misspelt one is an error, not a flag nobody reads).
void read_control_flags(lua_State* L, int idx, const std::string& where, TrainerControl& control) {
  const std::vector<std::string> names(std::begin(kFlags), std::end(kFlags));
  lua_pushnil(L);
  while (lua_next(L, idx) != 0) {
    const std::string key = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : std::string("?");
    const auto it = std::find(names.begin(), names.end(), key);
    if (it == names.end()) throw HookError(where + ": unknown control flag '" + key + "'" + did_you_mean(key, names));
    if (!lua_isboolean(L, -1)) throw HookError(where + ": control." + key + " must be true or false, got a " + luaL_typename(L, -1));
    *flag(control, static_cast<int>(it - names.begin())) = lua_toboolean(L, -1) != 0;
    lua_pop(L, 1);
  }
}

}  // namespace

void LuaCallback::on_event(Event event, const TrainingArguments& args, const TrainerState& state, TrainerControl& control,
                           const nlohmann::json& payload) {
  lua_State* L = L_;
  StackScope scope(L);
  table_.push();
  lua_getfield(L, -1, event_name(event));
  if (lua_isnil(L, -1)) return;
  if (!lua_isfunction(L, -1)) throw HookError(name_ + "." + event_name(event) + " must be a function");
  if (!args_) {
    push_json(L, args.to_json());
    args_ = std::make_unique<LuaRef>(L, -1);
    lua_pop(L, 1);
  }
  args_->push();
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
    rethrow(e);
  }
  // A callback may mutate control in place or return a control table (HF allows both). A
  // returned table changes only the flags it names: `return { should_save = true }` must not
  // clear a should_training_stop set before it.
  const std::string where = name_ + "." + event_name(event);
  const int result = lua_gettop(L);
  if (!lua_isnil(L, result) && !lua_istable(L, result))
    throw HookError(where + " must return nil or a control table, got a " + luaL_typename(L, result));
  read_control_flags(L, result - 1, where, control);
  if (lua_istable(L, result)) read_control_flags(L, result, where, control);
}

nlohmann::json LuaCallback::state() const {
  lua_State* L = L_;
  StackScope scope(L);
  table_.push();
  lua_getfield(L, -1, "state");
  if (!lua_isfunction(L, -1)) return nullptr;
  try {
    pcall_or_throw(L, 0, 1);
  } catch (const LuaError& e) {
    rethrow(e);
  }
  return {{"args", nlohmann::json::object()}, {"attributes", to_json(L, -1, name_ + ".state()")}};
}

void LuaCallback::load_state(const nlohmann::json& s) {
  lua_State* L = L_;
  StackScope scope(L);
  table_.push();
  lua_getfield(L, -1, "load_state");
  if (!lua_isfunction(L, -1)) return;
  push_json(L, s.value("attributes", nlohmann::json::object()));
  try {
    pcall_or_throw(L, 1, 0);
  } catch (const LuaError& e) {
    rethrow(e);
  }
}

std::shared_ptr<Callback> test_callback(lua_State* L, int idx) {
  void* p = lua_touserdata(L, idx);
  if (!p || !lua_getmetatable(L, idx)) return nullptr;
  luaL_getmetatable(L, kCallbackMeta);
  const bool same = lua_rawequal(L, -1, -2);
  lua_pop(L, 2);
  return same ? static_cast<CallbackBox*>(p)->cb : nullptr;
}

void register_callback_type(lua_State* L) {
  luaL_newmetatable(L, kCallbackMeta);
  set_functions(L, {{"__gc", callback_gc}, {"__tostring", guarded<callback_tostring>}});
  lua_pop(L, 1);
}

void push_callbacks_module(lua_State* L) {
  lua_newtable(L);
  set_functions(L, {{"early_stopping", guarded<cb_early_stopping>}});
}

}  // namespace runner::lua
