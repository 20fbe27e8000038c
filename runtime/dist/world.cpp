#include "runtime/dist/world.h"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <utility>

#include <mpi.h>

#include "runtime/core/errors.h"
#include "runtime/dist/blocking_call.h"
#include "runtime/dist/fault_monitor.h"
#include "runtime/dist/mpi_communicator.h"
#include "runtime/dist/parent_watch.h"

#ifdef RUNNER_HAVE_NCCL
#include "runtime/dist/nccl_communicator.h"
#endif

namespace runner::dist {

namespace {

World g_world;
bool g_initialised = false;
std::shared_ptr<Communicator> g_comm, g_nccl;
NodeGroups g_groups;

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

int env_int(const char* name, int fallback) {
  const char* v = env(name);
  return v ? std::atoi(v) : fallback;
}

// Inside an srun job step: SLURM_STEP_ID is a real step's number. A batch script (step
// "batch") or an salloc shell also carries SLURM_NTASKS (and the batch step SLURM_PROCID),
// and a runner started there directly is one process, not one of N.
bool in_srun_step() {
  const char* step = env("SLURM_STEP_ID") ? env("SLURM_STEP_ID") : env("SLURM_STEPID");
  if (!step || !env("SLURM_PROCID")) return false;
  char* end = nullptr;
  const unsigned long id = std::strtoul(step, &end, 10);
  return *end == '\0' && id < 0xfffffff0UL;  // Slurm's batch, extern and interactive steps are 0xfffffffa..
}

// How many processes the launcher says it started (0: it says nothing), and which variable
// says so.
std::pair<int, std::string> announced_size() {
  for (const char* name : {"PMI_SIZE", "OMPI_COMM_WORLD_SIZE"})
    if (env(name)) return {env_int(name, 0), name};
  if (in_srun_step()) {
    const char* name = env("SLURM_STEP_NUM_TASKS") ? "SLURM_STEP_NUM_TASKS" : "SLURM_NTASKS";
    return {env_int(name, 0), name};
  }
  return {0, ""};
}

// This process's rank as the launcher's variables give it (0 when they do not).
int announced_rank() {
  for (const char* name : {"PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK"})
    if (env(name)) return env_int(name, 0);
  return in_srun_step() ? env_int("SLURM_PROCID", 0) : 0;
}

// Which launcher started us, from the variables each one sets for its processes.
std::string detect_launcher() {
  if (in_srun_step() && announced_size().first > 1) return "srun";
  if (env("PMI_RANK") || env("PMI_FD") || env("PMI_SIZE") || env("PMIX_RANK") || env("OMPI_COMM_WORLD_SIZE")) return "mpiexec";
  return "";
}

}  // namespace

const World& init_world(int* argc, char*** argv) {
  if (g_initialised) return g_world;
  g_initialised = true;
  g_world.launcher = detect_launcher();
  if (g_world.launcher.empty()) {
    const int env_world = env_int("WORLD_SIZE", 1);
    if (env_world > 1)
      throw DistError("WORLD_SIZE=" + std::to_string(env_world) +
                      " but no MPI launcher started this process: ranks talk over MPI, so start them with `mpiexec -n " +
                      std::to_string(env_world) + " runner …`, `srun runner …` or `runner launch -n " + std::to_string(env_world) + " …`");
    if (env("RANK") || env("LOCAL_RANK")) g_world.launcher = "env";
    return g_world;
  }
  // Before MPI_Init, which a node lost at start-up can outlast. Hydra marks its ranks with its
  // proxy's control descriptor; srun's tasks are slurmstepd's children.
  watch_process_manager(::getppid(), g_world.launcher == "srun" || env("HYDI_CONTROL_FD"));
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
  g_world.mpi = true;
  // The ddp_timeout watchdog aborts from its own thread while the main thread may sit in a
  // collective: that needs full thread support (MPICH grants it).
  if (provided < MPI_THREAD_MULTIPLE) throw DistError("the MPI library does not grant MPI_THREAD_MULTIPLE, which the runner needs");
  MPI_Comm_rank(MPI_COMM_WORLD, &g_world.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_world.size);
  // A launcher whose processes cannot reach each other (srun with the wrong --mpi plugin, an
  // MPI built without PMI support): each one would train alone into one output_dir. The
  // launcher's first process says so; the others exit with the same code, quietly.
  if (const auto [announced, variable] = announced_size(); announced > 1 && g_world.size != announced) {
    const int env_rank = announced_rank();
    const std::string size = std::to_string(announced);
    throw DistError(env_rank != 0 ? ""
                                  : variable + "=" + size + " but MPI sees a world of " + std::to_string(g_world.size) + " (" + g_world.launcher +
                                        " started the processes without a working PMI, so each would train alone): with srun, pass the MPI "
                                        "plugin this MPI needs (srun --mpi=pmi2 or pmix; `srun --mpi=list`), or use `mpiexec -n " +
                                        size + " runner ...`");
  }
  MPI_Comm node;
  BlockingCall splitting("MPI_Comm_split (start-up)");
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, g_world.rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &g_world.local_rank);
  MPI_Comm_size(node, &g_world.local_size);
  // The nodes' first processes, ordered by global rank: a leader's rank there is its node's
  // index, which it tells the rest of its node. (Counting the processes with this local rank
  // instead would give a node with fewer processes a smaller world of nodes.)
  MPI_Comm leaders;
  MPI_Comm_split(MPI_COMM_WORLD, g_world.local_rank == 0 ? 0 : MPI_UNDEFINED, g_world.rank, &leaders);
  int nodes[2] = {0, 1};  // node rank, node count
  if (leaders != MPI_COMM_NULL) {
    MPI_Comm_rank(leaders, &nodes[0]);
    MPI_Comm_size(leaders, &nodes[1]);
    MPI_Comm_free(&leaders);
  }
  MPI_Bcast(nodes, 2, MPI_INT, 0, node);
  g_world.node_rank = nodes[0];
  g_world.num_nodes = nodes[1];
  MPI_Comm_free(&node);
  const int env_world = env_int("WORLD_SIZE", g_world.size);
  if (env_world != g_world.size)
    throw DistError("WORLD_SIZE=" + std::to_string(env_world) + " disagrees with the " + std::to_string(g_world.size) + " processes MPI started");
  return g_world;
}

const World& world() { return g_world; }

std::shared_ptr<Communicator> world_communicator(double timeout_seconds, const std::string& backend, int local_rank) {
  // Every rank comes here once before its first collective: the heartbeats start (one
  // MPI_Allgather), whatever the backend.
  if (g_world.mpi && g_world.size > 1) start_fault_monitor();
  if (backend == "nccl") {
#ifdef RUNNER_HAVE_NCCL
    // One process without a launcher gets an NCCL communicator of its own (no MPI to
    // bootstrap through): `--ddp_backend nccl` on one rank runs NCCL, as asked.
    if (!g_nccl) g_nccl = make_nccl_communicator(g_world.mpi ? MPI_COMM_WORLD : MPI_COMM_NULL, local_rank, timeout_seconds);
    return g_nccl;
#else
    throw DistError("ddp_backend = \"nccl\": this runner was built without NCCL (no CUDA toolkit with NCCL at build time); use \"mpi\"");
#endif
  }
  // A communicator made earlier with the default (dist.main_process_first while the recipe
  // loads) takes the run's ddp_timeout now.
  if (g_comm && timeout_seconds >= 0) g_comm->set_timeout(timeout_seconds);
  if (!g_comm) g_comm = g_world.mpi ? make_mpi_communicator(MPI_COMM_WORLD, timeout_seconds >= 0 ? timeout_seconds : 1800) : make_local_communicator();
  return g_comm;
}

NodeGroups node_groups(double timeout_seconds, const std::string& backend, int local_rank) {
  if (g_groups.node) return g_groups;
  if (!g_world.mpi) return g_groups = {world_communicator(timeout_seconds, backend, local_rank), make_local_communicator()};
  MPI_Comm node = MPI_COMM_NULL, replicas = MPI_COMM_NULL;
  {
    BlockingCall splitting("MPI_Comm_split (node groups)");
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, g_world.rank, MPI_INFO_NULL, &node);
    MPI_Comm_split(MPI_COMM_WORLD, g_world.local_rank, g_world.rank, &replicas);
  }
  if (backend == "nccl") {
#ifdef RUNNER_HAVE_NCCL
    g_groups = {make_nccl_communicator(node, local_rank, timeout_seconds), make_nccl_communicator(replicas, local_rank, timeout_seconds)};
#else
    throw DistError("ddp_backend = \"nccl\": this runner was built without NCCL (no CUDA toolkit with NCCL at build time); use \"mpi\"");
#endif
  } else {
    g_groups = {make_mpi_communicator(node, timeout_seconds), make_mpi_communicator(replicas, timeout_seconds)};
  }
  MPI_Comm_free(&node);  // the communicators hold duplicates
  MPI_Comm_free(&replicas);
  return g_groups;
}

void finalize_world() {
  stop_fault_monitor();  // after the last collective: rank 0 hears that this rank is done
  g_groups = {};
  g_nccl.reset();
  g_comm.reset();
  int finalized = 0;
  if (g_world.mpi && (MPI_Finalized(&finalized), !finalized)) {
    BlockingCall finalizing("MPI_Finalize (waiting for the other ranks to finish)", /*mpi_usable=*/false);
    MPI_Finalize();
  }
}

void abort_world(int exit_code) {
  if (!g_world.mpi || g_world.size == 1) return;
  // The error line sits in a pipe to the launcher's proxy; MPI_Abort tears the proxies down
  // and can drop it. A moment's pause lets the launcher forward it first.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  // MPICH's MPI_Abort prints a line of its own ("Abort(2) on node 1 ...: application called
  // MPI_Abort"); the rank's line above says what happened and stays the last one.
  if (const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC); null >= 0) ::dup2(null, STDERR_FILENO);
  MPI_Abort(MPI_COMM_WORLD, exit_code);
}

int lowest_failed_rank(bool failed, double timeout_seconds) {
  if (!g_world.mpi || g_world.size == 1) return failed ? 0 : -1;
  int mine = failed ? g_world.rank : g_world.size, lowest = g_world.size;
  MPI_Request request;
  MPI_Iallreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD, &request);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_seconds);
  for (int done = 0;;) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) break;
    if (std::chrono::steady_clock::now() > deadline) {
      std::fprintf(stderr, "runner: error: [rank %d] waited %.0f s for the other ranks to load the recipe: a peer is stuck; aborting every rank\n",
                   g_world.rank, timeout_seconds);
      std::fflush(stderr);
      abort_world(1);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return lowest < g_world.size ? lowest : -1;
}

std::vector<std::string> all_gather_strings(const std::string& mine) {
  if (!g_world.mpi || g_world.size == 1) return {mine};
  const int n = g_world.size;
  int length = static_cast<int>(mine.size());
  std::vector<int> lengths(n), offsets(n);
  MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, MPI_COMM_WORLD);
  int total = 0;
  for (int r = 0; r < n; ++r) offsets[r] = total, total += lengths[r];
  std::string all(static_cast<size_t>(total), '\0');
  MPI_Allgatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, MPI_COMM_WORLD);
  std::vector<std::string> out;
  for (int r = 0; r < n; ++r) out.push_back(all.substr(static_cast<size_t>(offsets[r]), static_cast<size_t>(lengths[r])));
  return out;
}

std::string common_backend(const std::vector<std::string>& chosen) {
  for (const auto& b : chosen)
    if (b != chosen.front()) return "mpi";
  return chosen.empty() ? "mpi" : chosen.front();
}

std::pair<int, int> shared_gpus(const std::vector<std::pair<int, std::string>>& node_and_gpu) {
  std::map<int, std::pair<int, std::set<std::string>>> nodes;  // node → (processes, GPUs)
  for (const auto& [node, gpu] : node_and_gpu) {
    if (gpu.empty()) continue;
    ++nodes[node].first;
    nodes[node].second.insert(gpu);
  }
  for (const auto& [node, seen] : nodes)
    if (seen.first > static_cast<int>(seen.second.size())) return {seen.first, static_cast<int>(seen.second.size())};
  return {0, 0};
}

int affinity_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  return CPU_COUNT(&set) > 0 ? CPU_COUNT(&set) : 1;
}

std::string mpi_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(text, &len);
  std::string v(text, static_cast<size_t>(len));
  const auto nl = v.find('\n');
  return nl == std::string::npos ? v : v.substr(0, nl);
}

std::string nccl_version() {
#ifdef RUNNER_HAVE_NCCL
  return nccl_library_version();
#else
  return "NCCL not built (CMake found no CUDA toolkit with NCCL)";
#endif
}

}  // namespace runner::dist
