#include "runtime/cli/command_line.h"

#include <cstdlib>

#include "runtime/core/errors.h"
#include "runtime/core/training_args.h"
#include "runtime/core/v4_arguments.h"

namespace runner::cli {

const char* usage() {
  return "usage: runner RECIPE.lua [--<argument> VALUE ...]   train as the recipe says\n"
         "       runner check RECIPE.lua [--<argument> VALUE ...]   validate; print the resolved arguments as JSON\n"
         "       runner search RECIPE.lua [--<argument> VALUE ...]   hyperparameter search over the recipe's hp_space\n"
         "       runner launch -n N RECIPE.lua [--<argument> VALUE ...]   run on N ranks (execs mpiexec -n N runner ...)\n"
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
         "2 user error (recipe, argument, data, checkpoint), 1 internal error.\n";
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
  if (first == "launch") {
    cl.command = "launch";
    size_t j = 1;
    if (j + 1 < a.size() && (a[j] == "-n" || a[j] == "--nproc" || a[j] == "-np")) {
      const std::string n = a[j + 1];
      char* end = nullptr;
      const long v = std::strtol(n.c_str(), &end, 10);
      if (n.empty() || *end != '\0' || v < 1) throw ArgumentError("runner launch: -n takes a positive rank count, got \"" + n + "\"", "command line");
      cl.launch_ranks = static_cast<int>(v);
      j += 2;
    }
    cl.launch_args.assign(a.begin() + static_cast<long>(j), a.end());
    // The rest must be a valid run command line; checking it here reports mistakes once,
    // not once per rank.
    std::vector<const char*> rest{argv[0]};
    for (const auto& s : cl.launch_args) rest.push_back(s.c_str());
    const CommandLine inner = parse_command_line(static_cast<int>(rest.size()), rest.data());
    if (inner.command != "run" && inner.command != "check" && inner.command != "search") throw ArgumentError("runner launch: expected a recipe after -n N", "command line");
    if (cl.launch_ranks == 0 && inner.accelerate_config.empty())
      throw ArgumentError("runner launch needs -n N before the recipe (runner launch -n 2 recipe.lua ...), or --accelerate_config FILE with num_processes",
                          "command line");
    cl.recipe = inner.recipe;
    cl.accelerate_config = inner.accelerate_config;
    return cl;
  }
  if (first == "check" || first == "search") {
    cl.command = first;
    i = 1;
  } else {
    cl.command = "run";
  }
  if (i >= a.size() || a[i].rfind("--", 0) == 0) throw ArgumentError("missing the recipe file (runner --help shows usage)", "command line");
  cl.recipe = a[i++];
  while (i < a.size()) {
    const std::string token = a[i];
    const std::string position = "command line:" + std::to_string(i + 1);
    if (token.rfind("--", 0) != 0 || token.size() == 2)
      throw ArgumentError("expected --name value, got \"" + token + "\"", position);
    std::string name = token.substr(2), value;
    if (name == "sandbox") {
      cl.sandbox = true;
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
      ++i;
      continue;
    } else {
      value = a[i + 1];
      i += 2;
    }
    if (name == "allow_path") cl.allow_paths.push_back(value);
    else if (name == "accelerate_config") cl.accelerate_config = value;
    else if (is_argument(name)) cl.arg_overrides.emplace_back(name, value);
    else cl.recipe_options[name] = value;  // checked against recipe.options{} after loading
  }
  return cl;
}

}  // namespace runner::cli
