// Dispatches events to callbacks in HF's order [DefaultFlow, user callbacks...,
// Progress or Printer] and resets control flags at the events HF resets them in, so a
// user callback sees the flags DefaultFlow just set and may override them.
#pragma once
#include <memory>
#include <vector>

#include "runtime/core/callback.h"

namespace runner::train {

class CallbackHandler {
 public:
  CallbackHandler(const TrainingArguments& args, std::vector<std::shared_ptr<Callback>> user_callbacks);
  void fire(Event event, const TrainerState& state, TrainerControl& control, const nlohmann::json& payload = nullptr);
  const std::vector<std::shared_ptr<Callback>>& callbacks() const { return callbacks_; }
  // The first callback that reads gradients or weights around the optimizer step
  // (Callback::observes_optimizer_step), or null.
  const Callback* optimizer_step_observer() const {
    for (const auto& cb : callbacks_)
      if (cb->observes_optimizer_step()) return cb.get();
    return nullptr;
  }

 private:
  const TrainingArguments& args_;
  std::vector<std::shared_ptr<Callback>> callbacks_;
};

}  // namespace runner::train
