// The runner's commands: run (train/evaluate/predict), check, launch, args.
#pragma once
#include "runtime/cli/command_line.h"

namespace runner::cli {

int run_recipe(const CommandLine& cl);  // run and check
int print_args(bool markdown);
// runner launch -n N ...: replaces this process with `mpiexec -n N <this runner> ...`.
// Returns only on failure (mpiexec not found).
int launch(const CommandLine& cl);
// runner consolidate CHECKPOINT OUT: the checkpoint's model as fp32 safetensors (what
// DeepSpeed's zero_to_fp32.py produces; our checkpoints already hold whole weights).
int consolidate(const CommandLine& cl);

}  // namespace runner::cli
