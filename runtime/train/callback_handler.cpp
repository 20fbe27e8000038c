#include "runtime/train/callback_handler.h"

#include <algorithm>

#include "runtime/log/log.h"

namespace runner::train {

CallbackHandler::CallbackHandler(const TrainingArguments& args, std::vector<std::shared_ptr<Callback>> user)
    : args_(args) {
  callbacks_.push_back(make_default_flow_callback());
  for (auto& c : user) callbacks_.push_back(std::move(c));
  callbacks_.push_back(make_printer_callback());
}

void CallbackHandler::fire(Event event, const TrainerState& state, TrainerControl& control, const nlohmann::json& payload) {
  switch (event) {
    case Event::kTrainBegin: control.should_training_stop = false; break;
    case Event::kEpochBegin: control.should_epoch_stop = false; break;
    case Event::kStepBegin: control.should_log = control.should_evaluate = control.should_save = false; break;
    case Event::kLog: control.should_log = false; break;
    case Event::kEvaluate: control.should_evaluate = false; break;
    case Event::kSave: control.should_save = false; break;
    default: break;
  }
  for (auto& c : callbacks_) c->on_event(event, args_, state, control, payload);
}

namespace {

class DefaultFlow : public Callback {
 public:
  std::string name() const override { return "DefaultFlowCallback"; }
  void on_event(Event e, const TrainingArguments& args, const TrainerState& state, TrainerControl& control,
                const nlohmann::json&) override {
    const int64_t step = state.global_step;
    if (e == Event::kStepEnd) {
      if (step == 1 && args.logging_first_step) control.should_log = true;
      if (args.logging_strategy == "steps" && state.logging_steps > 0 && step % state.logging_steps == 0) control.should_log = true;
      const bool eval_now = args.eval_strategy == "steps" && state.eval_steps > 0 && step % state.eval_steps == 0 &&
                            args.eval_delay <= static_cast<double>(step);
      if (eval_now) control.should_evaluate = true;
      if (args.save_strategy == "steps" && state.save_steps > 0 && step % state.save_steps == 0) control.should_save = true;
      if (step >= state.max_steps) {
        control.should_training_stop = true;
        // v5: the last step always gets an evaluation (steps strategy) and a save.
        if (args.eval_strategy == "steps" && !eval_now && args.eval_delay <= static_cast<double>(step)) control.should_evaluate = true;
        if (args.save_strategy == "steps") control.should_save = true;
      }
    } else if (e == Event::kEpochEnd) {
      if (args.logging_strategy == "epoch") control.should_log = true;
      if (args.eval_strategy == "epoch" && args.eval_delay <= state.epoch) control.should_evaluate = true;
      if (args.save_strategy == "epoch") control.should_save = true;
    }
  }
};

std::string python_repr(const nlohmann::json& v) {
  if (v.is_number()) return log::format_number(v.get<double>());
  if (v.is_string()) return "'" + v.get<std::string>() + "'";
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  if (v.is_null()) return "None";
  return v.dump();
}

class Printer : public Callback {
 public:
  std::string name() const override { return "PrinterCallback"; }
  void on_event(Event e, const TrainingArguments&, const TrainerState& state, TrainerControl&,
                const nlohmann::json& logs) override {
    if (e != Event::kLog || !state.is_local_process_zero) return;
    // HF's key order: loss, grad_norm, learning_rate first, epoch last, the rest between.
    static const char* const head[] = {"loss", "grad_norm", "learning_rate"};
    std::vector<std::string> keys;
    for (const char* k : head)
      if (logs.contains(k)) keys.emplace_back(k);
    for (auto it = logs.begin(); it != logs.end(); ++it)
      if (std::find(keys.begin(), keys.end(), it.key()) == keys.end() && it.key() != "epoch" && it.key() != "total_flos")
        keys.push_back(it.key());
    if (logs.contains("epoch")) keys.emplace_back("epoch");
    std::string line = "{";
    for (size_t i = 0; i < keys.size(); ++i) line += (i ? ", '" : "'") + keys[i] + "': " + python_repr(logs[keys[i]]);
    log::info(line + "}");
  }
};

}  // namespace

std::shared_ptr<Callback> make_default_flow_callback() { return std::make_shared<DefaultFlow>(); }
std::shared_ptr<Callback> make_printer_callback() { return std::make_shared<Printer>(); }

}  // namespace runner::train
