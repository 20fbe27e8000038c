// The runner's commands: run (train/evaluate/predict), check, search, launch, args, consolidate.
#pragma once
#include <functional>
#include <string>

#include "runtime/cli/command_line.h"
#include "runtime/dist/world.h"

namespace runner::cli {

int run_recipe(const CommandLine& cl);  // run and check

// A set-up error the ranks agreed on (before training): `message` is empty on the ranks that
// stay quiet. main prints it once, finalizes MPI (every rank got here) and exits with `code`.
struct SetupFailed {
  SetupFailed(std::string m, int c, bool named) : message(std::move(m)), code(c), name_rank(named) {}
  std::string message;
  int code;
  bool name_rank;  // the failing rank is not rank 0: say which
};
int print_args(bool markdown);
// Runs `setup` on every rank; the ranks compare notes (one collective) and a failure is
// thrown as SetupFailed on all of them, printed once.
void agree_on_setup(const dist::World& world, const std::function<void()>& setup);
// runner search RECIPE ...: the recipe's hyperparameter search (search_command.cpp).
int search(const CommandLine& cl);
// runner launch -n N ...: runs `mpiexec -n N <this runner> ...` (launch_command.cpp), passes
// the stop signals on to it and returns the job's exit code.
int launch(const CommandLine& cl);
// Rank 0 of a run `runner launch` started, ended by a signal (75 after a checkpoint, 128+N at
// once): tells the launcher the code, which mpiexec may lose (launch_command.cpp).
void report_exit_to_launcher(int code);
// Set by `runner launch --min_ranks` when a restart runs on fewer ranks than planned: the
// planned count, so each rank scales gradient accumulation to keep the global batch.
constexpr const char* kPlannedRanksVariable = "RUNNER_PLANNED_RANKS";
// Set by `runner launch --nnodes K`: the node count the ranks must span (mpiexec places the
// ranks on the hosts its hostfile or Slurm allocation gives; without them, all on this one).
constexpr const char* kLaunchNodesVariable = "RUNNER_LAUNCH_NNODES";
// The folder where the ranks of a `runner launch` keep their latest flight records for it
// ("" when no launcher started this run); launch_watch.h.
std::string launch_ranks_folder();
// The command that resumes this run: how it was started (runner, mpiexec -n N runner, srun
// or the `runner launch` line its launcher passed down), the recipe and every option given,
// without --resume_from_checkpoint (the caller appends it).
std::string resume_command(const CommandLine& cl, const dist::World& world);
// runner consolidate CHECKPOINT OUT: the checkpoint's model as fp32 safetensors (what
// DeepSpeed's zero_to_fp32.py produces; our checkpoints already hold whole weights).
int consolidate(const CommandLine& cl);

// runner generate MODEL_DIR|RECIPE.lua --prompt TEXT ...: continues each prompt with the model
// (a Hugging Face folder, or a recipe's model with its output_dir's trained weights) and prints
// prompt + continuation (generate_command.cpp).
int generate(const CommandLine& cl);

// runner merge-adapters ADAPTER_DIR OUT_DIR [--base_model DIR]: LoRA adapters merged into
// their base model, written as a plain model folder (merge_adapters_command.cpp).
int merge_adapters(const CommandLine& cl);

// runner prepare-data --tokenizer T --input F... --output train.bin (prepare_data_command.cpp).
int prepare_data(const CommandLine& cl);

}  // namespace runner::cli
