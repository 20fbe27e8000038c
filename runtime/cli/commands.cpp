#include "runtime/cli/commands.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <cstdio>
#include <iostream>

#include "bindings/lua/lua_hooks.h"
#include "bindings/lua/lua_state.h"
#include "bindings/lua/recipe.h"
#include "bindings/lua/search_hooks.h"
#include "runtime/cli/interrupt.h"
#include "runtime/cli/prepare_run.h"
#include "runtime/cli/process_setup.h"
#include "runtime/cli/stdout_to_stderr.h"
#include "runtime/core/errors.h"
#include "runtime/core/stop_request.h"
#include "runtime/io/atomic_file.h"
#include "runtime/io/safetensors.h"
#include "runtime/dist/blocking_call.h"
#include "runtime/dist/world.h"
#include "runtime/log/log.h"
#include "runtime/optim/scheduler.h"
#include "runtime/train/optimizer_factory.h"
#include "runtime/config/accelerate_config.h"
#include "runtime/device/device.h"
#include "runtime/train/optimizer_shards.h"
#include "runtime/config/parallel_config.h"
#include "runtime/train/run.h"

namespace runner::cli {


void agree_on_setup(const dist::World& world, const std::function<void()>& setup) {
  std::string message;
  int code = 0;
  try {
    setup();
  } catch (const Error& e) {
    message = e.what(), code = e.exit_code();
  } catch (const c10::Error& e) {
    message = e.what_without_backtrace(), code = 2;
  } catch (const std::exception& e) {
    message = std::string("internal error: ") + e.what(), code = 1;
  }
  if (world.size == 1) {
    if (code) throw SetupFailed(message, code, false);
    return;
  }
  const int lowest = dist::lowest_failed_rank(code != 0);
  if (lowest < 0) return;
  // The lowest failing rank speaks (named when it is not rank 0); the others stop quietly.
  throw SetupFailed(world.rank == lowest ? message : "", code ? code : 2, lowest != 0);
}


int run_recipe(const CommandLine& cl) {
  const dist::World& world = dist::world();
  StdoutToStderr quiet_stdout(cl.command == "check");
  PreparedRun prepared;
  share_template_time(world);  // before the recipe builds its datasets
  // Every rank resolves the same command line, so set-up errors are usually the same on all
  // of them: the ranks compare notes (one collective) and the error is printed once.
  agree_on_setup(world, [&] { prepare_run(cl, prepared, world); });
  if (cl.command != "check") agree_on_setup(world, [&] { check_datasets_agree(prepared.recipe.datasets, world); });
  lua::Recipe& recipe = prepared.recipe;
  const TrainingArguments& args = prepared.args;
  if (recipe.search->has_space() && world.rank == 0 && cl.command == "run")
    log::info("this recipe declares hp_space: this run trains it once with its own values; `runner search " + cl.recipe + "` runs the search");
  if (cl.command == "check") {
    // What training refuses before its first step without needing the model or the data:
    // the optimizer's options and the schedule's kwargs (the model-dependent checks, such as
    // gradient_checkpointing's, run when training starts).
    agree_on_setup(world, [&] {
      const auto hooks = std::static_pointer_cast<lua::LuaHooks>(recipe.hooks);
      if (!hooks->has("create_optimizer")) train::check_optimizer_arguments(args);
      if (!hooks->has("create_scheduler"))
        optim::make_scheduler(args.lr_scheduler_type, args.warmup_steps_for(1000), 1000, args.lr_scheduler_kwargs, args.learning_rate);
    });
    quiet_stdout.restore();
    std::cout << args.to_json().dump(2) << std::endl;
    return 0;
  }
  const std::string resume = resume_command(cl, world);
  set_interrupt_context(args.output_dir, resume, world.rank, args.enable_jit_checkpoint);
  train::TrainerOptions options = make_trainer_options(cl, prepared, world, /*single_process=*/false);
  train::Trainer trainer(args, recipe.model, recipe.datasets, recipe.hooks, recipe.callbacks, options);
  train::run_phases(trainer, prepared.phases);
  if (!stop_requested()) return 0;
  if (world.rank == 0) {
    std::fprintf(stderr, "runner: stopped by %s after step %lld%s\n", stop_reason().c_str(),
                 static_cast<long long>(trainer.state().global_step), resume_hint().c_str());
    report_exit_to_launcher(kPreemptedExitCode);
  }
  return kPreemptedExitCode;  // every rank: srun (and mpiexec, mostly: launch_command.cpp) report it as the job's code
}

int consolidate(const CommandLine& cl) {
  const std::string file = cl.recipe + "/model.safetensors", meta_file = cl.recipe + "/optimizer.json";
  const nlohmann::json meta = io::path_exists(meta_file) ? io::read_json_file(meta_file) : nlohmann::json::object();
  const bool sharded = meta.contains("shards") && meta["shards"].is_number_integer();
  if (!io::path_exists(file) && io::path_exists(cl.recipe + "/adapter_model.safetensors"))
    throw CheckpointError("holds LoRA adapters, not a model: runner merge-adapters " + cl.recipe + " OUT_DIR writes the merged model", cl.recipe);
  if (!io::path_exists(file) && !sharded) throw CheckpointError("no model.safetensors in this folder (is it a checkpoint-N folder?)", cl.recipe);
  // Buffers and frozen weights come from model.safetensors; trainable weights, when the
  // checkpoint holds per-rank optimizer shards, from their fp32 master values (what
  // DeepSpeed's zero_to_fp32.py rebuilds).
  io::NamedTensors tensors = io::path_exists(file) ? io::load_safetensors(file) : io::NamedTensors{};
  if (sharded) {
    for (auto& [name, master] : train::consolidate_param_shards(cl.recipe, meta["shards"].get<int>())) {
      auto it = std::find_if(tensors.begin(), tensors.end(), [&](const auto& e) { return e.first == name; });
      if (it != tensors.end()) it->second = master;
      else tensors.emplace_back(name, master);
    }
  }
  for (auto& [name, t] : tensors)
    if (t.is_floating_point()) t = t.to(at::kFloat);
  io::save_safetensors(cl.output, tensors, {{"format", "pt"}});
  std::cout << "wrote " << tensors.size() << " fp32 tensors to " << cl.output << "\n";
  return 0;
}

int print_args(bool markdown) {
  if (markdown) {
    std::cout << "# Training arguments\n\n"
                 "Generated by `runner args --markdown` from `runtime/core/training_args.def`; do not edit by hand.\n"
                 "Names, defaults and meanings follow Hugging Face `TrainingArguments` (v5 where v4 and v5 differ).\n"
                 "Set them in a recipe's `args` table or on the command line (`--name value`); the command line wins.\n"
                 "Fields marked *not supported* are accepted at their default so shared configurations load, and\n"
                 "refused with the given reason when set. Fields marked *no effect* cannot change results in runner:\n"
                 "setting them warns once (on the main process) and changes nothing. Every other field does what HF does.\n"
                 "DeepSpeed and FSDP configuration keys follow the same three states (docs/distributed.md).\n\n"
                 "| argument | type | default | description |\n|---|---|---|---|\n";
    for (const auto& f : arg_fields()) {
      std::string desc = f.help;
      if (*f.choices) {
        std::string choices = f.choices;  // "a|b|c" → "a`, `b`, `c"
        for (size_t at = choices.find('|'); at != std::string::npos; at = choices.find('|', at + 4)) choices.replace(at, 1, "`, `");
        desc += " One of: `" + choices + "`.";
      }
      if (*f.aliases) desc += " Also accepted as `" + std::string(f.aliases) + "`.";
      const std::string support = f.support;
      if (support.rfind("noop: ", 0) == 0) desc += " *No effect: " + support.substr(6) + ".*";
      else if (!support.empty()) desc += " *Not supported: " + support + ".*";
      std::cout << "| `" << f.name << "` | " << f.type << " | `" << f.default_value.dump() << "` | " << desc << " |\n";
    }
    return 0;
  }
  for (const auto& f : arg_fields()) {
    std::string line = std::string("--") + f.name + " (" + f.type + ", default " + f.default_value.dump() + ")";
    std::cout << line << "\n    " << f.help;
    if (*f.choices) std::cout << " [" << f.choices << "]";
    const std::string support = f.support;
    if (support.rfind("noop: ", 0) == 0) std::cout << " (no effect: " << support.substr(6) << ")";
    else if (!support.empty()) std::cout << " (not supported: " << support << ")";
    std::cout << "\n";
  }
  return 0;
}

}  // namespace runner::cli
