#include "runtime/cli/command_line.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "runtime/core/errors.h"
#include "runtime/core/training_args.h"
#include "runtime/core/v4_arguments.h"

namespace runner::cli {

const char* usage() {
  return "usage: runner RECIPE.lua [--<argument> VALUE ...]   train as the recipe says\n"
         "       runner check RECIPE.lua [--<argument> VALUE ...]   validate; print the resolved arguments as JSON\n"
         "       runner search RECIPE.lua [--<argument> VALUE ...]   hyperparameter search over the recipe's hp_space\n"
         "       runner launch -n N [-f HOSTFILE] [--hosts LIST] [--ppn N] [--launcher_args 'MPIEXEC OPTIONS']\n"
         "                    [--max_restarts K [--min_ranks M]] RECIPE.lua [--<argument> VALUE ...]\n"
         "                       run on N ranks: execs mpiexec (RUNNER_MPIEXEC) -n N runner ...; forwards SIGTERM, SIGUSR1, SIGINT\n"
         "       runner launch RECIPE.lua --accelerate_config FILE ...   as many ranks as the file's num_processes\n"
         "       runner consolidate CHECKPOINT OUT.safetensors   full fp32 weights of a checkpoint (any mode, any world size)\n"
         "       runner generate MODEL_DIR|RECIPE.lua --prompt TEXT [--max_new_tokens N --do_sample --temperature T\n"
         "                       --top_k K --top_p P --num_beams N --seed S --tokenizer tokenizer.json]   continue prompts\n"
         "       runner merge-adapters ADAPTER_DIR OUT_DIR [--base_model DIR]   LoRA adapters merged into their\n"
         "                       base model, written as a model folder (model.safetensors + config.json)\n"
         "       runner prepare-data --tokenizer tokenizer.json --input FILE... --output train.bin   tokenize a corpus\n"
         "                       into a nanoGPT-style token file (+ train.bin.json header) for data.token_bin\n"
         "       runner args [--markdown]   list every training argument with its default\n"
         "       runner --help | --version\n"
         "\n"
         "Arguments are HF TrainingArguments names (runner args lists them); a recipe may declare more\n"
         "with recipe.options{}. Booleans accept --flag, --flag true|false|1|0. --sandbox (or a first\n"
         "recipe line \"-- runner: sandbox\") keeps the recipe's file access inside its folder, output_dir\n"
         "and --allow_path DIR folders. --accelerate_config FILE maps an `accelerate config` YAML onto\n"
         "the arguments (docs/migrating.md). Exit codes: 0 ok,\n"
         "2 user error (recipe, argument, data, checkpoint), 1 internal error, 75 stopped by SIGTERM/SIGUSR1\n"
         "with a checkpoint saved (resume it: --resume_from_checkpoint true), 130 Ctrl-C, 143/138 stopped at once.\n";
}

namespace {
bool is_bool_field(const std::string& name) {
  if (name == "adafactor") return true;  // v4: --adafactor meant optim=adafactor
  const ArgField* f = find_arg_field(name);
  return f && (std::string(f->type) == "Bool" || std::string(f->type) == "OptBool");
}
bool is_argument(const std::string& name) { return find_arg_field(name) || find_v4_argument(name); }
// "--x" starts the next name; "-1" or "-" are values.
bool is_flag(const std::string& token) { return token.rfind("--", 0) == 0 && token.size() > 2; }
bool looks_like_bool(const std::string& v) {
  return v == "true" || v == "false" || v == "1" || v == "0" || v == "True" || v == "False" || v == "yes" || v == "no";
}

int positive(const std::string& option, const std::string& n) {
  char* end = nullptr;
  const long v = std::strtol(n.c_str(), &end, 10);
  if (n.empty() || *end != '\0' || v < 1 || v > 1000000)
    throw ArgumentError("runner launch: " + option + " takes a positive count, got \"" + n + "\"", "command line");
  return static_cast<int>(v);
}

// runner launch [options] RECIPE ...: mpiexec's options (torchrun's names where they exist)
// before the recipe, the run's command line after it.
CommandLine parse_launch(const std::vector<std::string>& a, const char* program) {
  CommandLine cl;
  cl.command = "launch";
  int per_node = 0, nodes = 0;
  size_t j = 1;
  while (j < a.size() && a[j].size() > 1 && a[j][0] == '-') {
    std::string option = a[j], value;
    const auto eq = option.find('=');
    const bool inline_value = option.rfind("--", 0) == 0 && eq != std::string::npos;
    if (inline_value) value = option.substr(eq + 1), option = option.substr(0, eq);
    static const std::set<std::string> known{"-n", "-np", "--nproc", "-f", "-hostfile", "--hostfile", "-hosts", "--hosts",
                                             "-ppn", "--ppn", "--nproc_per_node", "--nnodes", "--launcher_args",
                                             "--max_restarts", "--min_ranks"};
    if (!known.count(option))
      throw ArgumentError("runner launch: unknown option \"" + option +
                              "\" before the recipe (launch options: -n N, -f/--hostfile FILE, --hosts LIST, --ppn N, --nproc_per_node N, "
                              "--nnodes N, --launcher_args 'MPIEXEC OPTIONS', --max_restarts K, --min_ranks M)",
                          "command line");
    if (!inline_value) {
      if (j + 1 >= a.size()) throw ArgumentError("runner launch: " + option + " needs a value", "command line");
      value = a[j + 1];
    }
    cl.launch_options.insert(cl.launch_options.end(), a.begin() + static_cast<long>(j), a.begin() + static_cast<long>(j + (inline_value ? 1 : 2)));
    j += inline_value ? 1 : 2;
    if (option == "-n" || option == "-np" || option == "--nproc") {
      cl.launch_ranks = positive(option, value);
    } else if (option == "-f" || option == "-hostfile" || option == "--hostfile") {
      // Checked here: mpiexec's own message for a missing hostfile is a page of noise.
      std::ifstream f(value);
      if (!f) throw ArgumentError("runner launch: " + option + " " + value + ": cannot read the hostfile", "command line");
      cl.launcher_args.insert(cl.launcher_args.end(), {"-f", value});
      cl.hostfile = value;
    } else if (option == "-hosts" || option == "--hosts") {
      cl.launcher_args.insert(cl.launcher_args.end(), {"-hosts", value});
      cl.hosts = value;
    } else if (option == "--max_restarts") {
      cl.max_restarts = value == "0" ? 0 : positive(option, value);
    } else if (option == "--min_ranks") {
      cl.min_ranks = positive(option, value);
    } else if (option == "-ppn" || option == "--ppn" || option == "--nproc_per_node") {
      per_node = positive(option, value);
      cl.launcher_args.insert(cl.launcher_args.end(), {"-ppn", std::to_string(per_node)});
    } else if (option == "--nnodes") {
      nodes = positive(option, value);
    } else {  // --launcher_args: words for mpiexec, passed as they are
      std::istringstream words(value);
      for (std::string w; words >> w;) cl.launcher_args.push_back(w);
    }
  }
  // torchrun's form: --nnodes K --nproc_per_node P is K·P ranks, P on each node.
  if (!cl.launch_ranks && per_node) cl.launch_ranks = per_node * std::max(1, nodes);
  // -ppn as mpiexec gets it: --ppn's, or one inside --launcher_args' words.
  for (size_t i = 0; i + 1 < cl.launcher_args.size(); ++i)
    if (cl.launcher_args[i] == "-ppn") cl.ppn = std::atoi(cl.launcher_args[i + 1].c_str());
  if (nodes && !per_node && !cl.launch_ranks) throw ArgumentError("runner launch: --nnodes needs --nproc_per_node (or -n N)", "command line");
  cl.nnodes = nodes;
  if (cl.min_ranks && !cl.max_restarts) throw ArgumentError("runner launch: --min_ranks applies to restarts: give --max_restarts K too", "command line");
  if (cl.min_ranks && cl.launch_ranks && cl.min_ranks > cl.launch_ranks)
    throw ArgumentError("runner launch: --min_ranks " + std::to_string(cl.min_ranks) + " is more than the " + std::to_string(cl.launch_ranks) +
                            " ranks asked for",
                        "command line");
  cl.launch_args.assign(a.begin() + static_cast<long>(j), a.end());
  // The rest must be a valid run command line; checking it here reports mistakes once,
  // not once per rank.
  std::vector<const char*> rest{program};
  for (const auto& s : cl.launch_args) rest.push_back(s.c_str());
  const CommandLine inner = parse_command_line(static_cast<int>(rest.size()), rest.data());
  if (inner.command != "run" && inner.command != "check" && inner.command != "search")
    throw ArgumentError("runner launch: expected a recipe after the launch options", "command line");
  if (cl.launch_ranks == 0 && inner.accelerate_config.empty())
    throw ArgumentError("runner launch needs -n N before the recipe (runner launch -n 2 recipe.lua ...), or --accelerate_config FILE with num_processes",
                        "command line");
  cl.recipe = inner.recipe;
  cl.accelerate_config = inner.accelerate_config;
  return cl;
}
}  // namespace

CommandLine parse_command_line(int argc, const char* const* argv) {
  CommandLine cl;
  std::vector<std::string> a(argv + 1, argv + argc);
  if (a.empty()) {
    cl.command = "help";
    return cl;
  }
  size_t i = 0;
  const std::string first = a[0];
  if (first == "help") {
    cl.command = "help";
    return cl;
  }
  // --help anywhere on the line shows the usage, whatever else the line holds.
  for (const auto& token : a)
    if (token == "--help" || token == "-h") {
      cl.command = "help";
      return cl;
    }
  if (first == "--version" || first == "version") {
    cl.command = "version";
    return cl;
  }
  if (first == "args") {
    cl.command = "args";
    for (size_t j = 1; j < a.size(); ++j) {
      if (a[j] == "--markdown") cl.markdown = true;
      else throw ArgumentError("runner args takes only --markdown, got \"" + a[j] + "\"", "command line");
    }
    return cl;
  }
  if (first == "consolidate") {
    if (a.size() != 3) throw ArgumentError("usage: runner consolidate CHECKPOINT OUT.safetensors", "command line");
    cl.command = "consolidate";
    cl.recipe = a[1];
    cl.output = a[2];
    return cl;
  }
  if (first == "generate") {
    if (a.size() < 2 || a[1].rfind("--", 0) == 0)
      throw ArgumentError("usage: runner generate MODEL_DIR|RECIPE.lua --prompt TEXT [options] (runner --help)", "command line");
    cl.command = "generate";
    cl.recipe = a[1];
    cl.command_args.assign(a.begin() + 2, a.end());
    return cl;
  }
  if (first == "merge-adapters") {
    if (a.size() < 3 || a[1].rfind("--", 0) == 0 || a[2].rfind("--", 0) == 0)
      throw ArgumentError("usage: runner merge-adapters ADAPTER_DIR OUT_DIR [--base_model DIR]", "command line");
    cl.command = "merge-adapters";
    cl.recipe = a[1];
    cl.output = a[2];
    cl.command_args.assign(a.begin() + 3, a.end());
    return cl;
  }
  if (first == "prepare-data") {
    cl.command = "prepare-data";
    cl.command_args.assign(a.begin() + 1, a.end());
    return cl;
  }
  if (first == "launch") return parse_launch(a, argv[0]);
  if (first == "check" || first == "search") {
    cl.command = first;
    i = 1;
  } else {
    cl.command = "run";
  }
  if (i >= a.size() || a[i].rfind("--", 0) == 0) throw ArgumentError("missing the recipe file (runner --help shows usage)", "command line");
  cl.recipe = a[i++];
  while (i < a.size()) {
    const size_t start = i;
    const std::string token = a[i];
    const std::string position = "command line:" + std::to_string(i + 1);
    if (token.rfind("--", 0) != 0 || token.size() == 2)
      throw ArgumentError("expected --name value, got \"" + token + "\"", position);
    std::string name = token.substr(2), value;
    if (name == "sandbox") {
      cl.sandbox = true;
      cl.replay_args.push_back(token);
      ++i;
      continue;
    }
    const auto eq = name.find('=');
    if (eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      ++i;
    } else if (is_bool_field(name) && (i + 1 >= a.size() || !looks_like_bool(a[i + 1]))) {
      value = "true";  // --flag alone
      ++i;
    } else if (i + 1 >= a.size() || is_flag(a[i + 1])) {
      // A name without a value: a training argument needs one; anything else may be a
      // boolean recipe option, decided (or reported unknown by name) once the recipe has
      // declared its options. Never take the next --name as this one's value.
      if (is_argument(name) || name == "allow_path" || name == "accelerate_config") throw ArgumentError("--" + name + " needs a value", position);
      cl.bare_options.insert(name);
      cl.recipe_options[name] = "true";
      cl.replay_args.push_back(token);
      ++i;
      continue;
    } else {
      value = a[i + 1];
      i += 2;
    }
    if (name != "resume_from_checkpoint") cl.replay_args.insert(cl.replay_args.end(), a.begin() + static_cast<long>(start), a.begin() + static_cast<long>(i));
    if (name == "allow_path") cl.allow_paths.push_back(value);
    else if (name == "accelerate_config") cl.accelerate_config = value;
    else if (is_argument(name)) cl.arg_overrides.emplace_back(name, value);
    else cl.recipe_options[name] = value;  // checked against recipe.options{} after loading
  }
  return cl;
}

}  // namespace runner::cli
