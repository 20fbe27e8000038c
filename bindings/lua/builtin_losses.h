// models.dpo_loss{...}: TRL's DPO loss (runtime/train/preference_loss.h) as a value a recipe
// gives as compute_loss (the trainer then calls it directly) or calls from its own compute_loss:
// loss, outputs, metrics = dpo(model, inputs, ctx).
#pragma once
#include <memory>

#include "bindings/lua/lua_call.h"
#include "runtime/train/preference_loss.h"

namespace runner::lua {

int m_dpo_loss(lua_State* L);  // models.dpo_loss
void register_preference_loss_type(lua_State* L);
// The loss at idx, or nullptr when it is something else.
std::shared_ptr<train::PreferenceLoss> test_preference_loss(lua_State* L, int idx);

}  // namespace runner::lua
