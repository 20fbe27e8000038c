// models.dpo_loss{beta = 0.1, loss_type = "sigmoid" | {"sigmoid", "sft", ...}, loss_weights = {...},
//                 label_smoothing = 0, discopop_tau = 0.05, ld_alpha, disable_dropout = true, ref_model = <model>,
//                 model = <the model trained, when the recipe's own compute_loss calls the loss>}
// models.reward_loss{center_rewards_coefficient, disable_dropout = true}
#include "bindings/lua/builtin_losses.h"

#include "bindings/lua/lua_common.h"
#include "bindings/lua/lua_module.h"
#include "runtime/core/errors.h"
#include "runtime/train/preference_loss.h"
#include "runtime/train/reward_loss.h"

namespace runner::lua {

namespace {

constexpr const char* kMeta = "runner.BuiltinLoss";

struct LossBox {
  std::shared_ptr<train::BuiltinLoss> loss;
};

int loss_gc(lua_State* L) {
  static_cast<LossBox*>(lua_touserdata(L, 1))->~LossBox();
  return 0;
}

int loss_tostring(lua_State* L) {
  lua_pushstring(L, test_builtin_loss(L, 1)->name().c_str());
  return 1;
}

// loss(model, inputs[, ctx]) → loss, outputs, metrics {name = 0-dim tensor} (token means divided out)
int loss_call(lua_State* L) {
  auto loss = test_builtin_loss(L, 1);
  auto model = check_module(L, 2);
  const models::TensorMap inputs = to_tensor_map(L, 3, loss->name() + "'s inputs");
  train::LossResult r = (*loss)(*model, inputs);
  push_tensor(L, r.loss);
  push_tensor_map(L, r.outputs);
  lua_createtable(L, 0, static_cast<int>(r.metrics.size()));
  for (const auto& m : r.metrics) {
    push_tensor(L, m.weight.defined() ? m.value / m.weight.clamp_min(1) : m.value);
    lua_setfield(L, -2, m.name.c_str());
  }
  return 3;
}

std::vector<double> number_list(lua_State* L, Options& o, const char* key) {
  std::vector<double> out;
  if (!o.has(key)) return out;
  lua_getfield(L, 1, key);
  bool ok = lua_istable(L, -1);
  for (size_t i = 1; ok && i <= lua_objlen(L, -1); ++i) {
    lua_rawgeti(L, -1, static_cast<int>(i));
    ok = lua_type(L, -1) == LUA_TNUMBER;
    if (ok) out.push_back(lua_tonumber(L, -1));
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  if (!ok) throw RecipeError(std::string("models.dpo_loss: ") + key + " must be a list of numbers");
  return out;
}

int push_loss(lua_State* L, std::shared_ptr<train::BuiltinLoss> loss) {
  void* mem = lua_newuserdata(L, sizeof(LossBox));
  new (mem) LossBox{std::move(loss)};
  luaL_getmetatable(L, kMeta);
  lua_setmetatable(L, -2);
  return 1;
}

}  // namespace

int m_dpo_loss(lua_State* L) {
  Options o(L, 1, "models.dpo_loss");
  train::PreferenceLossOptions p;
  p.beta = o.number("beta", p.beta);
  if (o.has("loss_type")) {
    lua_getfield(L, 1, "loss_type");
    const bool one = lua_type(L, -1) == LUA_TSTRING;
    lua_pop(L, 1);
    p.loss_type = one ? std::vector<std::string>{o.string("loss_type", "sigmoid")} : o.string_list("loss_type", p.loss_type);
  }
  p.loss_weights = number_list(L, o, "loss_weights");
  p.label_smoothing = o.number("label_smoothing", p.label_smoothing);
  p.discopop_tau = o.number("discopop_tau", p.discopop_tau);
  if (o.has("ld_alpha")) p.ld_alpha = o.number("ld_alpha", 1.0);
  p.disable_dropout = o.boolean("disable_dropout", p.disable_dropout);
  if (o.has("ref_model")) {
    lua_getfield(L, 1, "ref_model");
    p.ref_model = test_module(L, -1);
    lua_pop(L, 1);
    if (!p.ref_model) throw RecipeError("models.dpo_loss: ref_model must be a model (models.from_pretrained(...), models.llama{...})");
  }
  models::ModulePtr model;  // the model it will train, when the recipe calls the loss itself
  if (o.has("model")) {
    lua_getfield(L, 1, "model");
    model = test_module(L, -1);
    lua_pop(L, 1);
    if (!model) throw RecipeError("models.dpo_loss: model must be the model being trained");
  }
  o.finish();
  auto loss = std::make_shared<train::PreferenceLoss>(std::move(p));
  if (model) loss->attach(*model);
  return push_loss(L, std::move(loss));
}

int m_reward_loss(lua_State* L) {
  Options o(L, 1, "models.reward_loss");
  train::RewardLossOptions p;
  if (o.has("center_rewards_coefficient")) p.center_rewards_coefficient = o.number("center_rewards_coefficient", 0.0);
  p.disable_dropout = o.boolean("disable_dropout", p.disable_dropout);
  o.finish();
  return push_loss(L, std::make_shared<train::RewardLoss>(p));
}

std::shared_ptr<train::BuiltinLoss> test_builtin_loss(lua_State* L, int idx) {
  void* p = lua_touserdata(L, idx);
  if (!p || !lua_getmetatable(L, idx)) return nullptr;
  luaL_getmetatable(L, kMeta);
  const bool same = lua_rawequal(L, -1, -2);
  lua_pop(L, 2);
  return same ? static_cast<LossBox*>(p)->loss : nullptr;
}

void register_builtin_loss_type(lua_State* L) {
  luaL_newmetatable(L, kMeta);
  set_functions(L, {{"__gc", loss_gc}, {"__tostring", guarded<loss_tostring>}, {"__call", guarded<loss_call>}});
  lua_pop(L, 1);
}

}  // namespace runner::lua
