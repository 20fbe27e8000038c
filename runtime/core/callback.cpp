#include "runtime/core/callback.h"

namespace runner {

const char* event_name(Event e) {
  switch (e) {
    case Event::kInitEnd: return "on_init_end";
    case Event::kTrainBegin: return "on_train_begin";
    case Event::kTrainEnd: return "on_train_end";
    case Event::kEpochBegin: return "on_epoch_begin";
    case Event::kEpochEnd: return "on_epoch_end";
    case Event::kStepBegin: return "on_step_begin";
    case Event::kPreOptimizerStep: return "on_pre_optimizer_step";
    case Event::kOptimizerStep: return "on_optimizer_step";
    case Event::kSubstepEnd: return "on_substep_end";
    case Event::kStepEnd: return "on_step_end";
    case Event::kEvaluate: return "on_evaluate";
    case Event::kPredict: return "on_predict";
    case Event::kSave: return "on_save";
    case Event::kLog: return "on_log";
    case Event::kPredictionStep: return "on_prediction_step";
  }
  return "?";
}

}  // namespace runner
