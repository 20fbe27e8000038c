// Intra-op threads per rank: the affinity mask shared by the node's ranks, unless srun bound
// each task to its own CPUs already (dividing again would leave most of them idle).
#include <gtest/gtest.h>

#include <cstdlib>

#include <ATen/Parallel.h>

#include "runtime/cli/process_setup.h"
#include "runtime/dist/world.h"

namespace runner::cli {
namespace {

TEST(ProcessSetup, ThreadsShareTheMaskUnlessSrunBoundTheTask) {
  unsetenv("OMP_NUM_THREADS");
  unsetenv("SLURM_STEP_ID");
  unsetenv("SLURM_CPUS_PER_TASK");
  const int cpus = dist::affinity_cpus();
  setup_process(2);
  EXPECT_EQ(at::get_num_threads(), std::max(1, cpus / 2));
  // An srun task bound to --cpus-per-task CPUs: its mask is its own share.
  setenv("SLURM_STEP_ID", "0", 1);
  setenv("SLURM_CPUS_PER_TASK", std::to_string(cpus).c_str(), 1);
  setup_process(2);
  EXPECT_EQ(at::get_num_threads(), cpus);
  // A mask wider than --cpus-per-task is not bound per task: shared as before.
  if (cpus > 1) {
    setenv("SLURM_CPUS_PER_TASK", std::to_string(cpus - 1).c_str(), 1);
    setup_process(2);
    EXPECT_EQ(at::get_num_threads(), std::max(1, cpus / 2));
  }
  setenv("OMP_NUM_THREADS", "3", 1);  // wins, as in PyTorch
  setup_process(2);
  EXPECT_EQ(at::get_num_threads(), 3);
  unsetenv("OMP_NUM_THREADS");
  unsetenv("SLURM_STEP_ID");
  unsetenv("SLURM_CPUS_PER_TASK");
}

}  // namespace
}  // namespace runner::cli
