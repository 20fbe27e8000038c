// Who this process is in a data-parallel job. `mpiexec -n N runner …` or `srun runner …`
// start N copies; each learns its rank, the world size and its rank on this node (the
// node's processes share its cores). Without a launcher the world is one process and MPI
// is never initialised, so a laptop run costs nothing extra.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace runner::dist {

class Communicator;

struct World {
  int rank = 0, size = 1;
  int local_rank = 0, local_size = 1;  // among the processes of this node
  int node_rank = 0, num_nodes = 1;
  bool mpi = false;  // MPI was initialised (by init_world)
  std::string launcher;  // "mpiexec", "srun", "env" or "" (single process)
};

// Initialises MPI (MPI_THREAD_MULTIPLE) when a launcher started this process (PMI, PMIx,
// Open MPI or SLURM variables), and otherwise returns a world of one. WORLD_SIZE (torchrun
// style) is a cross-check: > 1 without an MPI launcher is a DistError, because ranks need MPI
// to talk, and so is one that differs from MPI's world. So is a launcher that announces
// N > 1 processes (PMI_SIZE, OMPI_COMM_WORLD_SIZE, or SLURM_STEP_NUM_TASKS inside an srun
// step) when MPI sees fewer: no working PMI, each would train alone (exit 2; only the
// launcher's first process says it). Idempotent.
const World& init_world(int* argc, char*** argv);
const World& world();  // the current world (one process before init_world)

// The communicator over all ranks: with `backend` "nccl", NCCL driving GPU `local_rank`
// (bootstrapped through MPI when MPI is up, on its own for a single process); else MPI when
// MPI is up, or a world-of-one that copies.
// `timeout_seconds` bounds any wait (ddp_timeout): past it the whole job is aborted. One
// communicator per backend, made on first use.
std::shared_ptr<Communicator> world_communicator(double timeout_seconds = -1, const std::string& backend = "mpi", int local_rank = 0);

// FSDP HYBRID_SHARD's two groups: `node`, the ranks of this node (parameters, gradients and
// optimizer state are sharded over them), and `replicas`, the ranks with this local rank on
// every node (each holds the same shard, so they sum their gradients). Split from the world
// the way init_world finds nodes (MPI_COMM_TYPE_SHARED, i.e. the launcher's host map), on
// the backend `backend` names; made on first use, like world_communicator.
struct NodeGroups {
  std::shared_ptr<Communicator> node, replicas;
};
NodeGroups node_groups(double timeout_seconds = 1800, const std::string& backend = "mpi", int local_rank = 0);

// Ends MPI cleanly (after the last collective). Safe to call when MPI is not up.
void finalize_world();

// Takes every rank down after an error on this one, so no peer is left waiting inside a
// collective. Returns only when the world is a single process.
void abort_world(int exit_code);
// Collective over every rank, before training: whether this rank's set-up failed. Returns the
// lowest failing rank, or -1 when none failed. Waits at most `timeout_seconds` for the others
// (a rank stuck in its recipe), then aborts the world with a line saying so.
int lowest_failed_rank(bool failed, double timeout_seconds = 1800);

// Every rank's string, in rank order (a world of one: just this one). Waits as long as the
// slowest rank needs, with no ddp_timeout: `runner search` calls it between trials, which
// take as long as they take (a rank that dies takes the job down through the launcher).
std::vector<std::string> all_gather_strings(const std::string& mine);

// The backend for every rank, from each rank's own choice in rank order: ranks that chose
// differently (each picks its default from its own node: a node with more ranks than GPUs
// falls back to "mpi") would wait in different set-up calls (NCCL's id broadcast, MPI's
// communicator), so the world takes "mpi" when any rank chose it.
std::string common_backend(const std::vector<std::string>& chosen);
// Ranks driving one GPU (NCCL refuses two ranks on one GPU): from every rank's (node, GPU
// UUID), the first node where processes outnumber their distinct GPUs, as (processes, GPUs);
// {0, 0} when no GPU is shared. Ranks without a GPU ("" UUID) do not count.
std::pair<int, int> shared_gpus(const std::vector<std::pair<int, std::string>>& node_and_gpu);

// CPUs this process may run on (its affinity mask).
int affinity_cpus();

// Versions of the communication libraries built in: "MPICH 4.0.2 …", "NCCL 2.28.x" or
// "NCCL not built".
std::string mpi_version();
std::string nccl_version();

}  // namespace runner::dist
