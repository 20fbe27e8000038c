#include "runtime/cli/prepare_run.h"

#include <filesystem>
#include <algorithm>
#include <fstream>
#include <ctime>
#include <sstream>

#include <ATen/Context.h>

#include "bindings/lua/lua_hooks.h"
#include "runtime/cli/commands.h"
#include "runtime/cli/process_setup.h"
#include "runtime/core/errors.h"
#include "runtime/core/regex.h"
#include "runtime/data/dataset.h"
#include "runtime/data/stream/stream.h"
#include "runtime/data/tokenizers/chat_template.h"
#include "runtime/device/gpu_info.h"
#include "runtime/dist/blocking_call.h"
#include "runtime/dist/fault_monitor.h"
#include "runtime/dist/flight_recorder.h"
#include "runtime/io/dir_lock.h"
#include "runtime/io/atomic_file.h"
#include "runtime/log/log.h"
#include "runtime/train/gradient_checkpointing.h"
#include "runtime/config/accelerate_config.h"

namespace runner::cli {

namespace {

// "args.<key>: ..." errors from finalize() are located where the key was set: the
// command line if it was overridden there, else the recipe line that sets it.
std::string locate_argument_error(const std::string& message, const CommandLine& cl, const std::string& recipe) {
  static const Regex key_pattern("^args\\.([A-Za-z0-9_]+)");
  std::vector<std::string> m;
  if (!key_pattern.search(message, &m)) return recipe;
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

namespace {

// HF's default backend: NCCL for GPUs, MPI (gloo's role) for the CPU and for one process
// (nothing to communicate). Whether ranks share a GPU, which NCCL refuses, is known only once
// they compare their GPUs (agree_on_backend).
std::string choose_backend(const TrainingArguments& args, const device::DevicePlan& device, const dist::World& world) {
  const int gpus = device::cuda_device_count();
  if (device.is_cuda() && world.local_rank == 0 && world.local_size < gpus)
    log::warn("this node has " + std::to_string(gpus) + " GPUs but " + std::to_string(world.local_size) + " process" +
              (world.local_size == 1 ? " uses" : "es use") + " only " + std::to_string(world.local_size) +
              " of them (one GPU per process): start one process per GPU to use them all (runner launch -n " + std::to_string(gpus) +
              " or mpiexec -n " + std::to_string(gpus) + ")");
  if (args.ddp_backend) {
    if (*args.ddp_backend == "nccl" && !device.is_cuda())
      throw ArgumentError("args.ddp_backend: \"nccl\" needs GPU tensors, but this run trains on the CPU (" +
                          std::string(args.use_cpu ? "use_cpu is set" : "no GPU is visible") + "); use \"mpi\"");
    return *args.ddp_backend;
  }
  return !device.is_cuda() || world.size == 1 ? "mpi" : "nccl";
}

// The ranks compare which GPU each drives, by UUID (the same GPU whatever index a process's
// CUDA_VISIBLE_DEVICES gives it: srun --gpus-per-task shows each task its own one), and the
// backend each chose. Ranks sharing a GPU cannot use NCCL: the default falls back to MPI
// with one warning, an explicit "nccl" is one line, exit 2. Ranks whose nodes led them to
// different backends would wait in different set-up calls: they all take MPI. Collective.
void agree_on_backend(PreparedRun& p, const dist::World& world) {
  const std::string gpu = p.device.is_cuda() ? device::cuda_device_uuid(p.device.device) : "";
  const std::vector<std::string> all = dist::all_gather_strings(p.backend + " " + std::to_string(world.node_rank) + " " + gpu);
  std::vector<std::string> chosen;
  std::vector<std::pair<int, std::string>> node_and_gpu;
  for (const auto& entry : all) {
    std::istringstream fields(entry);
    std::string backend, uuid;
    int node = 0;
    fields >> backend >> node >> uuid;
    chosen.push_back(backend);
    node_and_gpu.emplace_back(node, uuid);
  }
  const auto [processes, gpus] = dist::shared_gpus(node_and_gpu);
  if (processes > 0) {
    const std::string sharing = std::to_string(processes) + " processes share " + std::to_string(gpus) + " GPU" + (gpus == 1 ? "" : "s") + " on a node";
    if (p.args.ddp_backend && *p.args.ddp_backend == "nccl")
      throw ArgumentError(world.rank != 0 ? "" : "args.ddp_backend: \"nccl\" needs a GPU per process, but " + sharing +
                                                     " (NCCL refuses two ranks on one GPU); use \"mpi\" or fewer processes per node");
    if (world.rank == 0 && !p.args.ddp_backend)
      log::warn(sharing + ", which NCCL refuses: collectives use the mpi backend instead (through host memory)");
    for (auto& b : chosen)
      if (b == "nccl") b = "mpi";
  }
  const auto mpi = std::find(chosen.begin(), chosen.end(), "mpi"), nccl = std::find(chosen.begin(), chosen.end(), "nccl");
  if (world.rank == 0 && processes == 0 && mpi != chosen.end() && nccl != chosen.end())
    log::warn("rank " + std::to_string(mpi - chosen.begin()) + " chose the mpi backend and rank " + std::to_string(nccl - chosen.begin()) +
              " nccl: every rank uses mpi (through host memory)");
  p.backend = dist::common_backend(chosen);
}

}  // namespace

namespace {

// A restart of `runner launch --min_ranks` on fewer ranks than planned: each rank takes
// planned/world times the micro-batches, so the global batch, and with full_determinism every
// sum, stays the same (docs/distributed.md, "Automatic restarts").
void keep_planned_global_batch(TrainingArguments& args, const dist::World& world) {
  const char* planned = std::getenv(kPlannedRanksVariable);
  const int n = planned ? std::atoi(planned) : 0;
  if (n <= world.size || n % world.size != 0) return;
  const int64_t before = args.gradient_accumulation_steps;
  args.gradient_accumulation_steps *= n / world.size;
  if (world.rank == 0)
    log::warn("restarted on " + std::to_string(world.size) + " of " + std::to_string(n) + " planned ranks: gradient_accumulation_steps " +
              std::to_string(before) + " -> " + std::to_string(args.gradient_accumulation_steps) + " keeps the global batch");
}

}  // namespace

void prepare_run(const CommandLine& cl, PreparedRun& p, const dist::World& world,
                 const std::function<void(PreparedRun&)>& adjust, bool single_process) {
  auto& lua = p.lua;
  auto& recipe = p.recipe;
  auto& args = p.args;
  auto& phases = p.phases;
  auto& parallel = p.parallel;
  auto& device = p.device;
  auto& backend = p.backend;
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
  std::string accelerate_line;
  if (!cl.accelerate_config.empty()) {
    // Below the recipe and the command line: it fills in what they leave at the defaults.
    const config::AccelerateConfig acc = config::read_accelerate_config(cl.accelerate_config);
    auto count = [](int n, const char* what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "es"); };
    if (acc.num_processes && *acc.num_processes != world.size)
      throw ArgumentError("num_processes = " + std::to_string(*acc.num_processes) + ", but this run has " + count(world.size, "process") +
                          ": start it with `runner launch --accelerate_config " + cl.accelerate_config + " " + cl.recipe + "` (or mpiexec -n " +
                          std::to_string(*acc.num_processes) + ")", cl.accelerate_config);
    if (acc.num_machines && *acc.num_machines != world.num_nodes)
      throw ArgumentError("num_machines = " + std::to_string(*acc.num_machines) + ", but this run's ranks are on " + std::to_string(world.num_nodes) +
                          " machine" + (world.num_nodes == 1 ? "" : "s") + " (mpiexec's hostfile or srun decides where ranks run)", cl.accelerate_config);
    accelerate_line = config::apply_accelerate_config(acc, args);
    warnings = acc.warnings;
  }
  if (const char* nnodes = std::getenv(kLaunchNodesVariable); nnodes && std::atoi(nnodes) != world.num_nodes)
    throw ArgumentError("runner launch --nnodes " + std::string(nnodes) + ", but this run's ranks are on " + std::to_string(world.num_nodes) +
                            " node" + (world.num_nodes == 1 ? "" : "s") +
                            ": mpiexec places the ranks on the hosts of its hostfile (-f FILE, --hosts LIST) or Slurm allocation",
                        "command line");
  keep_planned_global_batch(args, world);
  if (adjust) adjust(p);
  try {
    for (auto& w : args.finalize()) warnings.push_back(std::move(w));
  } catch (const ArgumentError& e) {
    throw e.located(locate_argument_error(e.message(), cl, cl.recipe));
  }
  if (args.local_rank != -1 && args.local_rank != world.local_rank)
    throw ArgumentError("args.local_rank = " + std::to_string(args.local_rank) + ", but this process's local rank is " +
                            std::to_string(world.local_rank) + " (MPI or LOCAL_RANK decide it): leave local_rank unset",
                        locate_argument_error("args.local_rank", cl, cl.recipe));
  // HF: the main process logs at log_level, the others at log_level_replica; with
  // log_on_each_node the first process of every node counts as a main one.
  const bool main_logger = world.rank == 0 || (args.log_on_each_node && world.local_rank == 0);
  log::configure(log::parse_level(main_logger ? args.log_level : args.log_level_replica), world.size > 1 ? world.rank : -1);
  if (world.rank == 0) {  // once per run, not once per rank
    if (!accelerate_line.empty()) log::info(accelerate_line);
    for (const auto& w : warnings) log::warn(w);
  }
  dist::set_blocking_timeout(static_cast<double>(args.ddp_timeout));
  // The heartbeats start with the communicator (dist/fault_monitor.h); a fault that ends the
  // job from the monitor's thread releases the output folder's lock first.
  dist::set_fault_timeout(args.fault_timeout);
  dist::set_flight_record_folder(args.output_dir + "/flight_record");
  dist::set_fault_exit_hook([] { io::release_dir_locks(); });
  if (world.size > 1) dist::set_launch_folder(launch_ranks_folder());
  if (sandboxed) {  // the recipe's own output_dir, for module:save in callbacks
    roots.push_back(args.output_dir);
    lua::set_sandbox_roots(roots);
  }

  phases = train::resolve_phases(args, recipe.datasets);
  const bool has_model_init = std::static_pointer_cast<lua::LuaHooks>(recipe.hooks)->has("model_init");
  if (!recipe.model && !has_model_init) throw RecipeError("the recipe has no model (give `model` or `model_init`)", cl.recipe);
  train::validate_setup(args, recipe.datasets, *recipe.hooks);
  try {
    // HF fills a DeepSpeed config's "auto" bucket sizes from the model's hidden size.
    int64_t hidden = -1;  // no model yet (model_init)
    if (recipe.model) {
      const std::string config = recipe.model->hf_config_json();
      const nlohmann::json c = config.empty() ? nlohmann::json::object() : nlohmann::json::parse(config);
      hidden = c.value("hidden_size", c.value("n_embd", int64_t{0}));
    }
    parallel = single_process ? config::resolve_parallel(args, 1, 1, hidden) : config::resolve_parallel(args, world.size, world.num_nodes, hidden);
    train::check_activation_offload(args);  // after resolve_parallel: fsdp_config.activation_checkpointing counts as gradient_checkpointing
    // Hybrid sharding pairs each rank with the same local rank on every other node.
    if (parallel.config.hybrid_shard && world.local_size * world.num_nodes != world.size)
      throw ArgumentError("args.fsdp: hybrid sharding needs the same number of processes on every node (this run has " + std::to_string(world.size) +
                          " on " + std::to_string(world.num_nodes) + " nodes, " + std::to_string(world.local_size) + " on rank " +
                          std::to_string(world.rank) + "'s); use full_shard, or -ppn");
    // HF: cuda:<local_rank> unless use_cpu; fp16 and tf32 are checked against it here, so
    // `runner check` sees the same errors a run would.
    device = device::resolve_device(args, world.local_rank);
    backend = choose_backend(args, device, world);
  } catch (const ArgumentError& e) {
    if (!e.where().empty()) throw;
    throw e.located(locate_argument_error(e.message(), cl, cl.recipe));
  }
  // Found now rather than at the first save, after training time was spent.
  if (io::path_exists(args.output_dir) && !io::is_directory(args.output_dir))
    throw ArgumentError("args.output_dir: \"" + args.output_dir + "\" is a file, not a folder", locate_argument_error("args.output_dir", cl, cl.recipe));
  if (world.rank == 0)
    for (const auto& w : parallel.warnings) log::warn(w);
}

train::TrainerOptions make_trainer_options(const CommandLine& cl, PreparedRun& p, const dist::World& world, bool single_process) {
  const lua::Recipe& recipe = p.recipe;
  const TrainingArguments& args = p.args;
  const config::ParallelPlan& parallel = p.parallel;
  const std::string& backend = p.backend;
  const device::DevicePlan& device = p.device;
  train::TrainerOptions options;
  options.local_rank = world.local_rank;
  options.input_name = recipe.input_name;
  options.recipe_path = cl.recipe;
  options.collator = recipe.collator;
  options.collator_thread_safe = recipe.collator_thread_safe;
  options.parallel = parallel.config;
  options.lr_factor = parallel.lr_factor;
  if (!parallel.deepspeed.is_null() && world.rank == 0) {
    // As DeepSpeed does: the configuration the run uses, after HF's "auto" filling.
    io::make_dirs(args.output_dir);
    io::write_json_atomic((args.output_dir + "/ds_config.json"), parallel.deepspeed);
    log::info("DeepSpeed configuration (\"auto\" filled in, saved to " + (args.output_dir + "/ds_config.json") + "): " +
              parallel.deepspeed.dump());
  }
  if (single_process) return options;  // no communicator: this rank trains alone
  if (world.size > 1) agree_on_backend(p, world);
  options.comm = dist::world_communicator(static_cast<double>(args.ddp_timeout), backend, world.local_rank);
  if (options.parallel.hybrid_shard) {  // shard within each node, replicate across nodes
    const dist::NodeGroups groups = dist::node_groups(static_cast<double>(args.ddp_timeout), backend, world.local_rank);
    options.parallel.shard_group = groups.node;
    options.parallel.replica_group = groups.replicas;
    log::info("Hybrid sharding: states sharded over the " + std::to_string(world.local_size) + " ranks of each node, replicated over " +
              std::to_string(world.num_nodes) + " nodes");
  }
  if (world.size > 1) log::info("Data parallel over " + std::to_string(world.size) + " ranks: " + backend + " backend, " + device::device_string(device.device));
  else if (options.comm->backend() == "nccl") log::info("One rank with the nccl backend (ddp_backend = \"nccl\"), " + device::device_string(device.device));
  return options;
}

void share_template_time(const dist::World& world) {
  const std::time_t now = std::time(nullptr);
  if (world.size == 1) return data::set_template_time(now);
  data::set_template_time(std::stoll(dist::all_gather_strings(std::to_string(now)).front()));
}

void check_datasets_agree(const train::Datasets& datasets, const dist::World& world) {
  if (world.size == 1) return;
  std::vector<std::pair<std::string, data::DatasetPtr>> all = {{"train", datasets.train}, {"eval", datasets.eval}, {"test", datasets.test}};
  for (const auto& [name, ds] : datasets.named_evals) all.emplace_back("eval." + name, ds);
  std::string mine;
  for (const auto& [name, ds] : all)
    if (ds) mine += name + " " + std::to_string(ds->size()) + " " + std::to_string(data::fingerprint(*ds)) + "\n";
  // A stream has no examples to fingerprint: its options and shards identify it.
  std::string stream_id;
  if (const data::StreamPtr& s = datasets.train_stream) {
    const data::StreamOptions& o = s->options();
    std::string names;
    for (const auto& f : s->shards()) names += f + "\n";
    stream_id = std::to_string(s->shards().size()) + " shards (names " + std::to_string(std::hash<std::string>{}(names) % 1000000) + "), " + o.format +
                " column " + o.column + ", buffer_size " + std::to_string(o.buffer_size) + ", seed " + std::to_string(o.seed) + ", tokenizer " +
                o.tokenizer + ", block_size " + std::to_string(o.block_size) + ", eos_token_id " + std::to_string(o.eos_token_id);
  }
  std::vector<std::string> every = dist::all_gather_strings(stream_id + '\x1e' + mine);
  for (size_t r = 0; r < every.size(); ++r) {
    const size_t cut = every[r].find('\x1e');
    const std::string id = every[r].substr(0, cut);
    every[r] = every[r].substr(cut + 1);
    if (id != stream_id)  // every rank compares, so every rank stops
      throw DataError("datasets.train (a data.stream) differs between ranks: rank " + std::to_string(r) + " built " + (id.empty() ? "none" : id) +
                      ", this rank " + (stream_id.empty() ? "none" : stream_id) + "; every rank must build the same stream");
  }
  for (size_t r = 1; r < every.size(); ++r) {
    if (every[r] == every[0]) continue;
    // The first dataset whose line differs, in rank 0's words.
    std::istringstream a(every[0]), b(every[r]);
    std::string la, lb;
    while (std::getline(a, la) && std::getline(b, lb) && la == lb) {
    }
    const std::string name = la.empty() ? lb.substr(0, lb.find(' ')) : la.substr(0, la.find(' '));
    auto size_of = [](const std::string& line) { return line.empty() ? std::string("none") : line.substr(line.find(' ') + 1, line.rfind(' ') - line.find(' ') - 1); };
    throw DataError("datasets." + name + " differs between ranks: rank 0 built " + size_of(la) + " examples, rank " + std::to_string(r) +
                    " " + size_of(lb) + (size_of(la) == size_of(lb) ? ", with different contents" : "") +
                    "; every rank must build the same data (seed random splits and shuffles; a template's date is shared)");
  }
}

}  // namespace runner::cli
