// The callback interface: HF's event names, each receiving (args, state, control, payload).
// `state` is read-only; callbacks steer the loop only through `control`.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/core/trainer_state.h"
#include "runtime/core/training_args.h"

namespace runner {

enum class Event {
  kInitEnd, kTrainBegin, kTrainEnd, kEpochBegin, kEpochEnd, kStepBegin, kPreOptimizerStep,
  kOptimizerStep, kSubstepEnd, kStepEnd, kEvaluate, kPredict, kSave, kLog, kPredictionStep,
};
const char* event_name(Event e);  // "on_step_end", ...

class Callback {
 public:
  virtual ~Callback() = default;
  virtual std::string name() const = 0;
  // `payload` carries the event's data: logs for on_log, metrics for on_evaluate/on_predict.
  virtual void on_event(Event event, const TrainingArguments& args, const TrainerState& state,
                        TrainerControl& control, const nlohmann::json& payload) = 0;
  // Whether on_pre_optimizer_step / on_optimizer_step may read the gradients or weights: a
  // captured step (cuda_graphs, runtime/train/step_graph.h) fires both around its whole
  // replay, so such a callback keeps the steps eager; and it keeps clipping a pass of its
  // own, so on_pre_optimizer_step sees clipped gradients as in HF (an optimizer that folds
  // the clip into its step, StepRunner::decide_clipping_fold, clips them only as it steps).
  // Recipe callbacks say so when they
  // define either function; the built-in ones do nothing there.
  virtual bool observes_optimizer_step() const { return false; }
  // Stateful callbacks (HF ExportableState): saved in trainer_state.json.
  virtual nlohmann::json state() const { return nullptr; }
  virtual void load_state(const nlohmann::json&) {}
};

}  // namespace runner
