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
#include <regex>

#include "bindings/lua/lua_hooks.h"
#include "bindings/lua/lua_state.h"
#include "bindings/lua/recipe.h"
#include "runtime/cli/interrupt.h"
#include "runtime/cli/process_setup.h"
#include "runtime/core/errors.h"
#include "runtime/core/stop_request.h"
#include "runtime/io/atomic_file.h"
#include "runtime/io/safetensors.h"
#include "runtime/dist/blocking_call.h"
#include "runtime/dist/world.h"
#include "runtime/log/log.h"
#include "runtime/train/device.h"
#include "runtime/train/optimizer_shards.h"
#include "runtime/train/parallel_config.h"
#include "runtime/train/run.h"

namespace runner::cli {

namespace {

// "args.<key>: ..." errors from finalize() are located where the key was set: the
// command line if it was overridden there, else the recipe line that sets it.
std::string locate_argument_error(const std::string& message, const CommandLine& cl, const std::string& recipe) {
  static const std::regex key_pattern("^args\\.([A-Za-z0-9_]+)");
  std::smatch m;
  if (!std::regex_search(message, m, key_pattern)) return recipe;
  const std::string key = m[1];
  for (const auto& [name, value] : cl.arg_overrides)
    if (name == key) return "command line";
  return lua::locate_key(recipe, key);
}

}  // namespace

// The recipe-level opt-in: a first line "-- runner: sandbox".
static bool recipe_asks_for_sandbox(const std::string& path) {
  std::ifstream in(path);
  std::string first;
  std::getline(in, first);
  return first.rfind("-- runner: sandbox", 0) == 0;
}

static void agree_on_setup(const dist::World& world, const std::function<void()>& setup) {
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

namespace {
// `runner check` prints the arguments as JSON on stdout, for tools to parse: while it
// loads the recipe, everything else written to stdout (log lines, the recipe's print) goes
// to stderr instead.
class StdoutToStderr {
 public:
  explicit StdoutToStderr(bool on) {
    if (!on) return;
    std::fflush(stdout);
    saved_ = ::dup(1);
    if (saved_ >= 0) ::dup2(2, 1);
  }
  ~StdoutToStderr() { restore(); }
  void restore() {
    if (saved_ < 0) return;
    std::cout.flush();
    std::fflush(stdout);
    ::dup2(saved_, 1);
    ::close(saved_);
    saved_ = -1;
  }
  StdoutToStderr(const StdoutToStderr&) = delete;
  StdoutToStderr& operator=(const StdoutToStderr&) = delete;

 private:
  int saved_ = -1;
};
}  // namespace

int run_recipe(const CommandLine& cl) {
  const dist::World& world = dist::world();
  StdoutToStderr quiet_stdout(cl.command == "check");
  std::unique_ptr<lua::LuaState> lua;
  lua::Recipe recipe;
  TrainingArguments args;
  train::Phases phases;
  train::ParallelPlan parallel;
  train::DevicePlan device;
  std::string backend;
  // Every rank resolves the same command line, so set-up errors are usually the same on all
  // of them: the ranks compare notes (one collective) and the error is printed once.
  agree_on_setup(world, [&] {
  setup_process(world.local_size);
  // PyTorch's generators start from a random seed; seeding them before the recipe runs makes
  // a model the recipe builds without torch.manual_seed the same on every run (and rank).
  // --seed decides (default 42); args.seed in the recipe then seeds training, as HF does.
  at::manual_seed(static_cast<uint64_t>(TrainingArguments{}.seed));
  for (const auto& [name, value] : cl.arg_overrides) {
    if (name != "seed") continue;
    TrainingArguments a;
    try {
      a.set_from_string(name, value);
    } catch (const ArgumentError& e) {
      throw e.located("command line");
    }
    at::manual_seed(static_cast<uint64_t>(a.seed));
  }
  // The recipe may print while it loads: those lines carry the rank prefix too (the levels of
  // log_level / log_level_replica apply once the arguments are known, below).
  log::configure(log::level(), world.size > 1 ? world.rank : -1);
  const bool sandboxed = cl.sandbox || recipe_asks_for_sandbox(cl.recipe);
  std::vector<std::string> roots = cl.allow_paths;
  if (sandboxed) {
    // Files the recipe's runner modules may touch: its own folder, output_dir and --allow_path.
    roots.push_back(std::filesystem::path(cl.recipe).parent_path().empty() ? "." : std::filesystem::path(cl.recipe).parent_path().string());
    for (const auto& [name, value] : cl.arg_overrides)
      if (name == "output_dir") roots.push_back(value);
    lua::set_sandbox_roots(roots);
  }
  lua = std::make_unique<lua::LuaState>(cl.recipe_options, lua::default_lib_dirs(), cl.bare_options);
  recipe = lua::load_recipe(*lua, cl.recipe);
  args = recipe.args;
  for (const auto& [name, value] : cl.arg_overrides) {
    try {
      args.set_from_string(name, value);
    } catch (const ArgumentError& e) {
      throw e.located("command line");
    }
  }
  std::vector<std::string> warnings;
  try {
    warnings = args.finalize();
  } catch (const ArgumentError& e) {
    throw e.located(locate_argument_error(e.message(), cl, cl.recipe));
  }
  // HF: the main process logs at log_level, the others at log_level_replica; with
  // log_on_each_node the first process of every node counts as a main one.
  const bool main_logger = world.rank == 0 || (args.log_on_each_node && world.local_rank == 0);
  log::configure(log::parse_level(main_logger ? args.log_level : args.log_level_replica), world.size > 1 ? world.rank : -1);
  if (world.rank == 0)  // once per run, not once per rank
    for (const auto& w : warnings) log::warn(w);
  dist::set_blocking_timeout(static_cast<double>(args.ddp_timeout));
  if (sandboxed) {  // the recipe's own output_dir, for module:save in callbacks
    roots.push_back(args.output_dir);
    lua::set_sandbox_roots(roots);
  }

  phases = train::resolve_phases(args, recipe.datasets);
  const bool has_model_init = std::static_pointer_cast<lua::LuaHooks>(recipe.hooks)->has("model_init");
  if (!recipe.model && !has_model_init) throw RecipeError("the recipe has no model (give `model` or `model_init`)", cl.recipe);
  train::validate_setup(args, recipe.datasets, *recipe.hooks);
  try {
    parallel = train::resolve_parallel(args, world.size, world.num_nodes);
    // HF: cuda:<local_rank> unless use_cpu; fp16 and tf32 are checked against it here, so
    // `runner check` sees the same errors a run would.
    device = train::resolve_device(args, world.local_rank);
    // HF's default backend: NCCL for GPUs, MPI (gloo's role) for the CPU.
    backend = args.ddp_backend.value_or(device.is_cuda() ? "nccl" : "mpi");
    if (backend == "nccl" && !device.is_cuda())
      throw ArgumentError("args.ddp_backend: \"nccl\" needs GPU tensors, but this run trains on the CPU (" +
                          std::string(args.use_cpu ? "use_cpu is set" : "no GPU is visible") + "); use \"mpi\"");
  } catch (const ArgumentError& e) {
    if (!e.where().empty()) throw;
    throw e.located(locate_argument_error(e.message(), cl, cl.recipe));
  }
  // Found now rather than at the first save, after training time was spent.
  if (io::path_exists(args.output_dir) && !io::is_directory(args.output_dir))
    throw ArgumentError("args.output_dir: \"" + args.output_dir + "\" is a file, not a folder", locate_argument_error("args.output_dir", cl, cl.recipe));
  if (world.rank == 0)
    for (const auto& w : parallel.warnings) log::warn(w);
  });
  if (cl.command == "check") {
    quiet_stdout.restore();
    std::cout << args.to_json().dump(2) << std::endl;
    return 0;
  }
  std::string resume = world.size > 1 ? "mpiexec -n " + std::to_string(world.size) + " runner " : "runner ";
  resume += cl.recipe;
  auto quoted = [](const std::string& v) {
    if (!v.empty() && v.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:=,+-") == std::string::npos) return v;
    std::string q = "'";
    for (char c : v) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
  };
  for (const auto& [name, value] : cl.arg_overrides)
    if (name != "resume_from_checkpoint") resume += " --" + name + " " + quoted(value);
  set_interrupt_context(args.output_dir, resume, world.rank, args.enable_jit_checkpoint);
  train::TrainerOptions options;
  options.input_name = recipe.input_name;
  options.recipe_path = cl.recipe;
  options.collator = recipe.collator;
  options.collator_thread_safe = recipe.collator_thread_safe;
  options.parallel = parallel.config;
  if (!parallel.deepspeed.is_null() && world.rank == 0) {
    // As DeepSpeed does: the configuration the run uses, after HF's "auto" filling.
    io::make_dirs(args.output_dir);
    io::write_json_atomic((args.output_dir + "/ds_config.json"), parallel.deepspeed);
    log::info("DeepSpeed configuration (\"auto\" filled in, saved to " + (args.output_dir + "/ds_config.json") + "): " +
              parallel.deepspeed.dump());
  }
  options.comm = dist::world_communicator(static_cast<double>(args.ddp_timeout), backend, world.local_rank);
  if (world.size > 1) log::info("Data parallel over " + std::to_string(world.size) + " ranks: " + backend + " backend, " + train::device_string(device.device));
  options.local_rank = world.local_rank;
  train::Trainer trainer(args, recipe.model, recipe.datasets, recipe.hooks, recipe.callbacks, options);
  train::run_phases(trainer, phases);
  if (stop_requested() && world.rank == 0)
    std::fprintf(stderr, "runner: stopped by %s after step %lld%s\n", stop_reason().c_str(),
                 static_cast<long long>(trainer.state().global_step), resume_hint().c_str());
  return 0;
}

int launch(const CommandLine& cl) {
  char self[PATH_MAX];
  const ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (len <= 0) throw DistError("runner launch: cannot find the runner executable (/proc/self/exe)");
  self[len] = '\0';
  const char* launcher = std::getenv("RUNNER_MPIEXEC") ? std::getenv("RUNNER_MPIEXEC") : "mpiexec";
  std::vector<std::string> argv_s{launcher, "-n", std::to_string(cl.launch_ranks), self};
  argv_s.insert(argv_s.end(), cl.launch_args.begin(), cl.launch_args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::cout.flush();
  // The signal mask survives exec: mpiexec must see Ctrl-C (it forwards it to the ranks).
  sigset_t interrupt;
  sigemptyset(&interrupt);
  sigaddset(&interrupt, SIGINT);
  pthread_sigmask(SIG_UNBLOCK, &interrupt, nullptr);
  execvp(launcher, argv.data());
  throw DistError(std::string("runner launch: cannot run ") + launcher + " (install mpich, or set RUNNER_MPIEXEC)");
}

int consolidate(const CommandLine& cl) {
  const std::string file = cl.recipe + "/model.safetensors", meta_file = cl.recipe + "/optimizer.json";
  const nlohmann::json meta = io::path_exists(meta_file) ? io::read_json_file(meta_file) : nlohmann::json::object();
  const bool sharded = meta.contains("shards") && meta["shards"].is_number_integer();
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
      if (*f.choices) desc += " One of: `" + std::regex_replace(std::string(f.choices), std::regex("\\|"), "`, `") + "`.";
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
