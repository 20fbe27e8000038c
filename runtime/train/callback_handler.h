// Dispatches events to callbacks in order [DefaultFlow, user callbacks..., Printer] and
// resets control flags at the events HF resets them in, so a user callback sees the flags
// DefaultFlow just set and may override them.
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

// HF DefaultFlowCallback (v5): decides log / evaluate / save / stop from the strategies.
std::shared_ptr<Callback> make_default_flow_callback();
// HF PrinterCallback: prints each log dict (minus total_flos) on the main process.
std::shared_ptr<Callback> make_printer_callback();

}  // namespace runner::train
