#include "bindings/lua/lua_hooks.h"

#include <algorithm>

#include "bindings/lua/data_binding.h"
#include "bindings/lua/lua_module.h"
#include "bindings/lua/builtin_losses.h"
#include "runtime/core/did_you_mean.h"
#include "runtime/core/errors.h"
#include "runtime/core/regex.h"
#include "runtime/device/device.h"

namespace runner::lua {

namespace {

void set_number(lua_State* L, int table, const char* key, double v) {
  lua_pushnumber(L, v);
  lua_setfield(L, table, key);
}
void set_tensor(lua_State* L, int table, const char* key, const at::Tensor& t) {
  if (!t.defined()) return;
  push_tensor(L, t);
  lua_setfield(L, table, key);
}
at::Tensor optional_tensor(lua_State* L, int idx, const std::string& what) {
  if (lua_isnil(L, idx)) return {};
  at::Tensor* t = test_tensor(L, idx);
  if (!t) throw HookError(what + " must be a tensor or nil, got " + luaL_typename(L, idx));
  return *t;
}

// ctx.backward(loss) inside a training_step hook: the runtime's weighted backward.
// Upvalues: a box holding the LossContext (emptied when the hook returns) and the Lua ctx
// table, whose loss_is_normalized the hook may have set before calling backward.
int ctx_backward(lua_State* L) {
  auto* ctx = *static_cast<train::LossContext**>(lua_touserdata(L, lua_upvalueindex(1)));
  if (!ctx) throw HookError("ctx.backward can only be called during the training_step it was given to");
  lua_getfield(L, lua_upvalueindex(2), "loss_is_normalized");
  ctx->loss_is_normalized = lua_toboolean(L, -1) != 0;
  lua_pop(L, 1);
  const int arg = lua_istable(L, 1) ? 2 : 1;  // ctx.backward(loss) or ctx:backward(loss)
  ctx->backward(check_tensor(L, arg));
  return 0;
}

// box_idx: the stack index of training_step's LossContext box (0: no ctx.backward).
void push_loss_context(lua_State* L, train::LossContext& ctx, int box_idx) {
  lua_createtable(L, 0, 5);
  const int t = lua_gettop(L);
  set_number(L, t, "num_items_in_batch", static_cast<double>(ctx.num_items_in_batch));
  set_number(L, t, "micro_items", static_cast<double>(ctx.micro_items));
  lua_pushboolean(L, ctx.loss_is_normalized);
  lua_setfield(L, t, "loss_is_normalized");
  lua_pushboolean(L, ctx.training);
  lua_setfield(L, t, "training");
  lua_pushstring(L, device::device_string(ctx.device).c_str());
  lua_setfield(L, t, "device");
  if (box_idx != 0) {
    lua_pushvalue(L, box_idx);
    lua_pushvalue(L, t);
    lua_pushcclosure(L, guarded<ctx_backward>, 2);
    lua_setfield(L, t, "backward");
  }
}

// "" when `key` is absent or of the wanted type, else a message naming the field.
std::string type_error(const nlohmann::json& obj, const char* key, bool (nlohmann::json::*is)() const noexcept, const char* want) {
  if (!obj.contains(key) || (obj[key].*is)()) return "";
  return std::string(key) + " must be " + want + ", got " + obj[key].type_name();
}

}  // namespace

const std::vector<std::string>& hook_names() {
  static const std::vector<std::string> names{"compute_loss", "training_step", "prediction_step", "compute_metrics",
                                              "preprocess_logits_for_metrics", "data_collator", "create_optimizer",
                                              "create_scheduler", "model_init"};
  return names;
}

LuaHooks::LuaHooks(lua_State* L, int table_idx, std::string origin) : L_(L), origin_(std::move(origin)) {
  const int abs = table_idx < 0 ? lua_gettop(L) + table_idx + 1 : table_idx;
  StackScope scope(L);
  for (const auto& name : hook_names()) {
    lua_getfield(L, abs, name.c_str());
    if (lua_isnil(L, -1)) {
      lua_pop(L, 1);
      continue;
    }
    if (name == "data_collator" && test_collator(L, -1)) {  // data.pad_collator{...}: recipe loading takes it
      lua_pop(L, 1);
      continue;
    }
    if (name == "compute_loss" && (builtin_loss_ = test_builtin_loss(L, -1))) {  // models.dpo_loss{...}, models.reward_loss{...}: called directly
      where_[name] = origin_;
      lua_pop(L, 1);
      continue;
    }
    if (!lua_isfunction(L, -1)) throw RecipeError(name + " must be a function, got " + luaL_typename(L, -1));
    where_[name] = defined_at(L, -1);
    fns_[name] = std::make_unique<LuaRef>(L, -1);
    lua_pop(L, 1);
  }
}

// A full cycle: the tensors a failed step left to Lua (its loss and graph, a hook's locals) are
// released only when the collector runs, and it runs by allocation volume, not on errors.
void LuaHooks::collect_garbage() { lua_gc(L_, LUA_GCCOLLECT, 0); }

std::vector<std::string> LuaHooks::step_hooks() const {
  std::vector<std::string> out;
  for (const char* name : {"compute_loss", "training_step"})
    if (has(name)) out.emplace_back(name);
  return out;
}

bool LuaHooks::push(const std::string& name) const {
  auto it = fns_.find(name);
  if (it == fns_.end()) return false;
  it->second->push();
  return true;
}

void LuaHooks::call(const std::string& name, int nargs, int nresults) const {
  try {
    pcall_or_throw(L_, nargs, nresults);
  } catch (const LuaError& e) {
    throw HookError(e.what());
  }
}

void LuaHooks::fail(const std::string& name, const std::string& message) const {
  auto it = where_.find(name);
  throw HookError(name + ": " + message, it == where_.end() ? origin_ : it->second);
}

void LuaHooks::attach_model(models::Module& model) {
  if (builtin_loss_) builtin_loss_->attach(model);
}

// compute_loss's third result: {name = number or one-value tensor}, logged beside the loss.
std::vector<train::LossResult::Metric> LuaHooks::metrics_of(int idx) const {
  std::vector<train::LossResult::Metric> out;
  if (lua_isnil(L_, idx)) return out;
  if (!lua_istable(L_, idx)) fail("compute_loss", "its third result must be a table of metrics {name = number or one-value tensor}");
  const int t = lua_gettop(L_) + idx + 1;
  lua_pushnil(L_);
  while (lua_next(L_, t) != 0) {
    const std::string name = lua_type(L_, -2) == LUA_TSTRING ? lua_tostring(L_, -2) : "";
    at::Tensor* v = test_tensor(L_, -1);
    if (name.empty() || !(lua_type(L_, -1) == LUA_TNUMBER || (v && v->numel() == 1)))
      fail("compute_loss", "its third result must map metric names to numbers or one-value tensors" + (name.empty() ? std::string() : " (\"" + name + "\" is not)"));
    out.push_back({name, v ? v->detach() : at::scalar_tensor(lua_tonumber(L_, -1), at::kDouble), {}});
    lua_pop(L_, 1);
  }
  return out;
}

// compute_loss(model, inputs, ctx) → loss[, outputs[, metrics]]
std::optional<train::LossResult> LuaHooks::compute_loss(models::Module& model, const train::Batch& inputs, train::LossContext& ctx) {
  if (builtin_loss_) return (*builtin_loss_)(model, inputs);
  StackScope scope(L_);
  if (!push("compute_loss")) return std::nullopt;
  push_module(L_, model.shared_from_this());
  push_tensor_map(L_, inputs);
  push_loss_context(L_, ctx, /*box_idx=*/0);
  lua_pushvalue(L_, -1);
  lua_insert(L_, -5);  // a copy of ctx below the call, to read loss_is_normalized back
  call("compute_loss", 3, 3);
  train::LossResult r;
  at::Tensor* loss = test_tensor(L_, -3);
  if (!loss) fail("compute_loss", std::string("must return a loss tensor, got ") + luaL_typename(L_, -3));
  r.loss = *loss;
  if (at::Tensor* out = test_tensor(L_, -2)) r.outputs["logits"] = *out;
  else if (lua_istable(L_, -2)) r.outputs = to_tensor_map(L_, -2, "compute_loss's outputs");
  else if (!lua_isnil(L_, -2)) fail("compute_loss", "its second result must be a table of tensors or a tensor");
  r.metrics = metrics_of(-1);
  lua_getfield(L_, -4, "loss_is_normalized");
  ctx.loss_is_normalized = lua_toboolean(L_, -1) != 0;
  return r;
}

// training_step(model, inputs, ctx) → loss; ctx.backward(loss) does the weighted backward.
std::optional<at::Tensor> LuaHooks::training_step(models::Module& model, const train::Batch& inputs, train::LossContext& ctx) {
  StackScope scope(L_);
  if (!has("training_step")) return std::nullopt;
  // ctx.backward reaches `ctx` through this box, which stays on the stack during the call and
  // is emptied on return: a ctx.backward the recipe kept cannot touch a finished micro-step.
  auto** box = static_cast<train::LossContext**>(lua_newuserdata(L_, sizeof(train::LossContext*)));
  *box = &ctx;
  const int box_idx = lua_gettop(L_);
  struct Expire {
    train::LossContext** box;
    ~Expire() { *box = nullptr; }
  } expire{box};
  push("training_step");
  push_module(L_, model.shared_from_this());
  push_tensor_map(L_, inputs);
  push_loss_context(L_, ctx, box_idx);
  lua_pushvalue(L_, -1);
  lua_insert(L_, -5);
  call("training_step", 3, 1);
  at::Tensor* loss = test_tensor(L_, -1);
  if (!loss) fail("training_step", std::string("must return the loss tensor, got ") + luaL_typename(L_, -1));
  lua_getfield(L_, -2, "loss_is_normalized");
  ctx.loss_is_normalized = lua_toboolean(L_, -1) != 0;
  return *loss;
}

// prediction_step(model, inputs, {prediction_loss_only =}) → loss, logits, labels
std::optional<train::PredictionResult> LuaHooks::prediction_step(models::Module& model, const train::Batch& inputs, bool loss_only) {
  StackScope scope(L_);
  if (!push("prediction_step")) return std::nullopt;
  push_module(L_, model.shared_from_this());
  push_tensor_map(L_, inputs);
  lua_createtable(L_, 0, 1);
  lua_pushboolean(L_, loss_only);
  lua_setfield(L_, -2, "prediction_loss_only");
  call("prediction_step", 3, 3);
  train::PredictionResult r;
  r.loss = optional_tensor(L_, -3, "prediction_step's loss");
  r.logits = optional_tensor(L_, -2, "prediction_step's logits");
  r.labels = optional_tensor(L_, -1, "prediction_step's labels");
  return r;
}

// compute_metrics(p, compute_result) → { name = number, ... }
nlohmann::json LuaHooks::compute_metrics(const train::EvalPrediction& p, bool compute_result) {
  StackScope scope(L_);
  if (!push("compute_metrics")) return nlohmann::json::object();
  lua_createtable(L_, 0, 4);
  const int t = lua_gettop(L_);
  set_tensor(L_, t, "predictions", p.predictions);
  set_tensor(L_, t, "label_ids", p.label_ids);
  set_tensor(L_, t, "inputs", p.inputs);
  set_tensor(L_, t, "losses", p.losses);
  lua_pushboolean(L_, compute_result);
  call("compute_metrics", 2, 1);
  nlohmann::json metrics = nlohmann::json::object();
  if (lua_isnil(L_, -1)) return metrics;
  if (!lua_istable(L_, -1)) fail("compute_metrics", std::string("must return a table of metrics, got ") + luaL_typename(L_, -1));
  const int r = lua_gettop(L_);
  lua_pushnil(L_);
  while (lua_next(L_, r)) {
    const std::string key = lua_type(L_, -2) == LUA_TSTRING ? lua_tostring(L_, -2) : "";
    if (key.empty()) fail("compute_metrics", "metric names must be strings");
    if (lua_type(L_, -1) == LUA_TNUMBER) metrics[key] = lua_tonumber(L_, -1);
    else if (lua_type(L_, -1) == LUA_TBOOLEAN) metrics[key] = lua_toboolean(L_, -1) != 0;
    else if (lua_type(L_, -1) == LUA_TSTRING) metrics[key] = lua_tostring(L_, -1);
    else if (at::Tensor* v = test_tensor(L_, -1); v && v->numel() == 1) metrics[key] = v->item<double>();
    else fail("compute_metrics", "metric '" + key + "' must be a number (or a one-element tensor)");
    lua_pop(L_, 1);
  }
  return metrics;
}

std::optional<at::Tensor> LuaHooks::preprocess_logits_for_metrics(const at::Tensor& logits, const at::Tensor& labels) {
  StackScope scope(L_);
  if (!push("preprocess_logits_for_metrics")) return std::nullopt;
  push_tensor(L_, logits);
  if (labels.defined()) push_tensor(L_, labels);
  else lua_pushnil(L_);
  call("preprocess_logits_for_metrics", 2, 1);
  at::Tensor* out = test_tensor(L_, -1);
  if (!out) fail("preprocess_logits_for_metrics", std::string("must return a tensor, got ") + luaL_typename(L_, -1));
  return out->detach();
}

// create_optimizer(model, args) → { type =, lr =, weight_decay =, <options>, groups = {...} }
std::optional<train::OptimizerSpec> LuaHooks::create_optimizer(models::Module& model, const TrainingArguments& args) {
  StackScope scope(L_);
  if (!push("create_optimizer")) return std::nullopt;
  push_module(L_, model.shared_from_this());
  push_json(L_, args.to_json());
  call("create_optimizer", 2, 1);
  if (!lua_istable(L_, -1)) fail("create_optimizer", std::string("must return an optimizer table, got ") + luaL_typename(L_, -1));
  nlohmann::json spec = to_json(L_, -1, "create_optimizer's result");
  if (!spec.is_object()) fail("create_optimizer", "must return a table of named fields {type =, lr =, ...}");
  for (const auto& e : {type_error(spec, "type", &nlohmann::json::is_string, "an optimizer name"),
                        type_error(spec, "lr", &nlohmann::json::is_number, "a number"),
                        type_error(spec, "weight_decay", &nlohmann::json::is_number, "a number")})
    if (!e.empty()) fail("create_optimizer", e);
  train::OptimizerSpec s;
  s.type = spec.value("type", args.optim);
  s.lr = spec.value("lr", args.learning_rate);
  s.weight_decay = spec.value("weight_decay", args.weight_decay);
  for (auto it = spec.begin(); it != spec.end(); ++it)
    if (it.key() != "type" && it.key() != "lr" && it.key() != "weight_decay" && it.key() != "groups") s.options[it.key()] = it.value();
  if (spec.contains("groups")) {
    if (!spec["groups"].is_array()) fail("create_optimizer", "groups must be a list of {names =, match =, lr =, weight_decay =}");
    for (const auto& g : spec["groups"]) {
      if (!g.is_object()) fail("create_optimizer", "each group must be a table {names =, match =, lr =, weight_decay =}");
      for (const auto& e : {type_error(g, "match", &nlohmann::json::is_string, "a regular expression (a string)"),
                            type_error(g, "lr", &nlohmann::json::is_number, "a number"),
                            type_error(g, "weight_decay", &nlohmann::json::is_number, "a number")})
        if (!e.empty()) fail("create_optimizer", "group " + e);
      train::OptimizerSpec::Group group;
      if (g.contains("names")) {
        const auto& names = g["names"];
        const bool strings = names.is_string() || (names.is_array() && std::all_of(names.begin(), names.end(), [](const auto& n) { return n.is_string(); }));
        if (!strings) fail("create_optimizer", "group names must be a parameter name or a list of them");
        if (names.is_string()) group.names = {names.get<std::string>()};
        else for (const auto& n : names) group.names.push_back(n.get<std::string>());
      }
      group.match = g.value("match", std::string());
      if (!group.match.empty()) {
        try {
          const Regex check(group.match, "group match");
        } catch (const Error& e) {
          fail("create_optimizer", e.message());
        }
      }
      if (group.names.empty() && group.match.empty()) fail("create_optimizer", "each group needs names or match");
      if (g.contains("lr")) group.lr = g["lr"].get<double>();
      if (g.contains("weight_decay")) group.weight_decay = g["weight_decay"].get<double>();
      for (auto it = g.begin(); it != g.end(); ++it)
        if (it.key() != "names" && it.key() != "match" && it.key() != "lr" && it.key() != "weight_decay")
          fail("create_optimizer", "unknown group option '" + it.key() + "' (names, match, lr, weight_decay)");
      s.groups.push_back(std::move(group));
    }
  }
  return s;
}

// create_scheduler(num_training_steps, args) → function(step) → multiplier, or
// { type =, warmup_steps =, kwargs = } / a type name
std::optional<train::SchedulerSpec> LuaHooks::create_scheduler(int64_t num_training_steps, const TrainingArguments& args) {
  StackScope scope(L_);
  if (!push("create_scheduler")) return std::nullopt;
  lua_pushnumber(L_, static_cast<double>(num_training_steps));
  push_json(L_, args.to_json());
  call("create_scheduler", 2, 1);
  train::SchedulerSpec s;
  if (lua_isfunction(L_, -1)) {
    auto fn = std::make_shared<LuaRef>(L_, -1);
    auto self = shared_from_this();
    s.lambda = [fn, self](int64_t step) {
      lua_State* L = fn->state();
      StackScope inner(L);
      fn->push();
      lua_pushnumber(L, static_cast<double>(step));
      self->call("create_scheduler", 1, 1);
      if (lua_type(L, -1) != LUA_TNUMBER) self->fail("create_scheduler", "the schedule function must return a number (the lr multiplier)");
      return lua_tonumber(L, -1);
    };
    return s;
  }
  if (lua_isstring(L_, -1)) {
    s.type = lua_tostring(L_, -1);
    return s;
  }
  if (!lua_istable(L_, -1)) fail("create_scheduler", "must return a function of the step, a schedule name or {type =, ...}");
  const nlohmann::json spec = to_json(L_, -1, "create_scheduler's result");
  if (!spec.is_object()) fail("create_scheduler", "must return a function of the step, a schedule name or {type =, ...}");
  for (const auto& e : {type_error(spec, "type", &nlohmann::json::is_string, "a schedule name"),
                        type_error(spec, "warmup_steps", &nlohmann::json::is_number_integer, "a whole number"),
                        type_error(spec, "kwargs", &nlohmann::json::is_object, "a table of named options")})
    if (!e.empty()) fail("create_scheduler", e);
  const std::vector<std::string> keys = {"type", "warmup_steps", "kwargs"};
  for (auto it = spec.begin(); it != spec.end(); ++it)
    if (std::find(keys.begin(), keys.end(), it.key()) == keys.end())
      fail("create_scheduler", "unknown option '" + it.key() + "' (type, warmup_steps, kwargs)" + did_you_mean(it.key(), keys));
  s.type = spec.value("type", args.lr_scheduler_type);
  if (spec.contains("warmup_steps")) s.warmup_steps = spec["warmup_steps"].get<int64_t>();
  if (spec.contains("kwargs")) s.kwargs = spec["kwargs"];
  return s;
}

models::ModulePtr LuaHooks::model_init() {
  StackScope scope(L_);
  if (!push("model_init")) return nullptr;
  if (model_init_argument_.is_null()) {
    call("model_init", 0, 1);
  } else {
    push_json(L_, model_init_argument_);
    call("model_init", 1, 1);
  }
  auto m = test_module(L_, -1);
  if (!m) fail("model_init", std::string("must return a model, got ") + luaL_typename(L_, -1));
  return m;
}

data::Collator LuaHooks::data_collator() {
  if (!has("data_collator")) return {};
  auto self = shared_from_this();
  return [self](const std::vector<data::Example>& examples, const data::BatchOrigin& origin) {
    lua_State* L = self->L_;
    StackScope scope(L);
    const BatchOriginScope batch(origin);  // a built-in collator called inside draws as this batch's
    self->push("data_collator");
    lua_createtable(L, static_cast<int>(examples.size()), 0);
    for (size_t i = 0; i < examples.size(); ++i) {
      push_tensor_map(L, examples[i]);
      lua_rawseti(L, -2, static_cast<int>(i + 1));
    }
    self->call("data_collator", 1, 1);
    if (!lua_istable(L, -1)) self->fail("data_collator", std::string("must return a batch table, got ") + luaL_typename(L, -1));
    return to_tensor_map(L, -1, "data_collator's batch");
  };
}

}  // namespace runner::lua
