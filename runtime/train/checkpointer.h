// checkpoint-N folders and the final outputs. Everything a resumed run needs to continue
// bit-identically is saved: weights, optimizer state and step, scheduler position, every
// rank's generators, the unlogged loss and trainer_state.json (with callback states). The
// data order needs nothing: each epoch's permutation is a function of (data_seed, epoch).
// Also HF's best-model bookkeeping and rotation (save_total_limit), and resuming
// (resume_from_checkpoint: the newest intact checkpoint, or a path).
#pragma once
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/train/async_save.h"
#include "runtime/train/run_context.h"

namespace runner::train {

class Checkpointer {
 public:
  explicit Checkpointer(RunContext& ctx) : ctx_(ctx) {}

  // checkpoint-<global_step>, written atomically; collective. With save_async the states
  // are copied to host memory and written in the background (async_save.h).
  void save();
  // The save in flight, if any, written and committed on every rank; collective. Its write
  // error is thrown here (a CheckpointError).
  void wait_for_save();
  // At a step boundary, without waiting: throws the error of a background write that failed.
  void check_background_save();
  // resume_from_checkpoint as a folder: "" when not resuming. A CheckpointError when none is
  // valid (true finds the newest intact one, passing damaged ones with a warning), or when
  // the ranks would take different ones. Collective the first time; then remembered.
  std::string resume_path() const;
  // The checkpoint's weights, state, optimizer, schedule, loss bookkeeping and callbacks'
  // states into the run; its generators wait in the loop state (restore_pending_rng).
  void load(const std::string& dir);
  // A resumed run's generators, once the data skip is done (HF restores them there too).
  void restore_pending_rng();
  void load_best_model();     // load_best_model_at_end
  void delete_all_but_best();  // HF: save_total_limit 1 at the end keeps only the best
  // HF's TrainerState.stateful_callbacks: TrainerControl and the stateful callbacks.
  nlohmann::json stateful_callbacks() const;

  // model.safetensors (or LoRA adapters) in `dir` (default output_dir), written atomically;
  // collective (every rank calls it, the writer writes).
  void save_model(const std::string& dir) const;
  void save_state() const;  // trainer_state.json in output_dir

 private:
  std::string local_resume_path() const;  // this rank's view of resume_from_checkpoint
  void warn_if_another_run(const std::string& checkpoint_dir) const;

  RunContext& ctx_;
  BackgroundSave background_;  // save_async: the save in flight
  mutable std::optional<std::string> resume_;  // resume_path(), agreed by the ranks
};

}  // namespace runner::train
