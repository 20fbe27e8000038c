// The runner's commands: run (train/evaluate/predict), check, args.
#pragma once
#include "runtime/cli/command_line.h"

namespace runner::cli {

int run_recipe(const CommandLine& cl);  // run and check
int print_args(bool markdown);

}  // namespace runner::cli
