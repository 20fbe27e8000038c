// The phases of a run, in HF example-script order: train → save model and state →
// evaluate → predict, with the results files of DESIGN.md's output contract.
#pragma once
#include "runtime/train/trainer.h"

namespace runner::train {

struct Phases {
  bool train = false, eval = false, predict = false;
};

// HF defaults: do_train when there is a train dataset, do_eval when there is an eval
// dataset or eval_strategy is not "no", do_predict only when asked (and needs test data).
Phases resolve_phases(const TrainingArguments& args, const Datasets& datasets);

// Runs the phases; writes model.safetensors, trainer_state.json, training_args.json,
// train_results.json, eval_results.json, test_results.json, all_results.json and (with
// do_predict) predictions.safetensors holding `predictions` and `label_ids`.
void run_phases(Trainer& trainer, const Phases& phases);

}  // namespace runner::train
