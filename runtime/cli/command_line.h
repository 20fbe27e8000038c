// argv → a command, a recipe path and the --name value overrides, split into training
// arguments and recipe options (recipe.options{} in the recipe).
#pragma once
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace runner::cli {

struct CommandLine {
  std::string command;  // run, check, search, launch, consolidate, generate, merge-adapters, prepare-data, args, help, version
  std::string recipe;
  // Training arguments in the order given: (name, text, argv position).
  std::vector<std::pair<std::string, std::string>> arg_overrides;
  std::map<std::string, std::string> recipe_options;
  // Recipe options given as a bare --name (no value): true for a boolean option, an error
  // for any other, and "unknown argument" with a suggestion when the recipe declares none.
  std::set<std::string> bare_options;
  bool markdown = false;  // runner args --markdown
  // --sandbox: the recipe's runner modules read and write files only under its own folder,
  // output_dir and the --allow_path folders (docs/recipes.md).
  bool sandbox = false;
  std::vector<std::string> allow_paths;
  // --accelerate_config FILE: an `accelerate config` YAML mapped onto the arguments.
  std::string accelerate_config;
  // runner launch [-n N] [launcher options] RECIPE ...: the rank count (0: take
  // num_processes from --accelerate_config), the options for mpiexec (-f FILE, -hosts LIST,
  // -ppn N and --launcher_args' words), the launch options as given (for the resume line)
  // and the arguments from the recipe on.
  int launch_ranks = 0;
  std::vector<std::string> launcher_args;
  std::vector<std::string> launch_options;
  std::vector<std::string> launch_args;
  // -f FILE / --hosts LIST as given (re-read when a restart looks for live hosts), and
  // torchrun's --max_restarts K (restart a failed job from its newest checkpoint up to K
  // times) with --min_ranks M (a restart may go on with fewer ranks, not fewer than M).
  std::string hostfile;
  std::string hosts;
  int ppn = 0;  // -ppn / --nproc_per_node (0: not given)
  int nnodes = 0;  // torchrun's --nnodes (0: not given): the nodes the ranks must span
  int max_restarts = 0;
  int min_ranks = 0;
  // The tokens after the recipe, without --resume_from_checkpoint and its value: what the
  // printed resume command repeats, so the resumed run is the same run.
  std::vector<std::string> replay_args;
  // runner consolidate CHECKPOINT OUT.safetensors (recipe holds CHECKPOINT).
  std::string output;
  // runner generate MODEL_DIR|RECIPE --prompt ... (recipe holds the target) and runner
  // prepare-data --...: the tokens after the command's target, read by the command itself.
  std::vector<std::string> command_args;
};

// Throws ArgumentError located at "command line" for malformed input.
CommandLine parse_command_line(int argc, const char* const* argv);

const char* usage();

}  // namespace runner::cli
