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

 private:
  const TrainingArguments& args_;
  std::vector<std::shared_ptr<Callback>> callbacks_;
};

}  // namespace runner::train
