#include "runtime/train/callback_handler.h"

#include <unistd.h>

#include "runtime/dist/flight_recorder.h"
#include "runtime/log/log.h"
#include "runtime/train/builtin_callbacks.h"
#include "runtime/log/progress.h"
#include "runtime/train/report_callbacks.h"

namespace runner::train {

CallbackHandler::CallbackHandler(const TrainingArguments& args, std::vector<std::shared_ptr<Callback>> user) : args_(args) {
  callbacks_.push_back(make_default_flow_callback());
  for (auto& c : make_report_callbacks(args)) callbacks_.push_back(std::move(c));  // HF: integrations before user callbacks
  for (auto& c : user) {
    for (const auto& existing : callbacks_)
      if (existing->name() == c->name() && c->name() != "LuaCallback")
        log::warn("You are adding a " + c->name() + " to the callbacks of this Trainer, but there is already one");
    callbacks_.push_back(std::move(c));
  }
  // The bar on a terminal (or with disable_tqdm = false, as HF); elsewhere log lines plus a
  // plain progress line per tenth of the run, unless disable_tqdm = true.
  const bool bar = !args.disable_tqdm.value_or(!::isatty(STDOUT_FILENO));
  callbacks_.push_back(log::make_progress_callback(bar, !args.disable_tqdm.value_or(false)));
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
  // Where this rank is, for the flight record (dist/flight_recorder.h): a callback that
  // never returns while the peers wait is a stuck rank.
  dist::set_step(state.global_step);
  if (event == Event::kTrainBegin) dist::set_phase("train");
  {
    dist::Phase phase(event_name(event), /*in_user_code=*/true);
    for (auto& c : callbacks_) c->on_event(event, args_, state, control, payload);
  }
  if (event == Event::kTrainEnd) dist::set_phase("after training");
}

}  // namespace runner::train
