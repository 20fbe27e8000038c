// The losses runner implements (runtime/train/builtin_loss.h) as values a recipe gives as
// compute_loss (the trainer then calls them directly) or calls from its own compute_loss:
// loss, outputs, metrics = dpo(model, inputs, ctx).
//   models.dpo_loss{...}: TRL's DPO loss (runtime/train/preference_loss.h)
//   models.reward_loss{...}: TRL's reward-model loss (runtime/train/reward_loss.h)
#pragma once
#include <memory>

#include "bindings/lua/lua_call.h"
#include "runtime/train/builtin_loss.h"

namespace runner::lua {

int m_dpo_loss(lua_State* L);     // models.dpo_loss
int m_reward_loss(lua_State* L);  // models.reward_loss
void register_builtin_loss_type(lua_State* L);
// The loss at idx, or nullptr when it is something else.
std::shared_ptr<train::BuiltinLoss> test_builtin_loss(lua_State* L, int idx);

}  // namespace runner::lua
