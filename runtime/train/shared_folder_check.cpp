#include "runtime/train/shared_folder_check.h"

#include <cstdio>
#include <fstream>
#include <optional>
#include <random>
#include <vector>

#include "runtime/core/errors.h"
#include "runtime/core/training_args.h"
#include "runtime/dist/data_parallel.h"
#include "runtime/io/atomic_file.h"
#include "runtime/log/log.h"

namespace runner::train {

namespace {

// Whether the first processes of different nodes see one another's files in `output_dir`
// (each leaves a marker there and looks for the others'); nullopt on one node. Collective.
std::optional<bool> leaders_share(const std::string& output_dir, const dist::DataParallel& dp, int local_rank) {
  const bool leader = local_rank == 0;
  // Rank 0's token names this run's markers: a marker a killed run left behind (on a disk
  // that was another node's last time) cannot pass for a live one.
  const std::vector<double> tokens = dp.gather(static_cast<double>(std::random_device{}() & 0xffffff));
  const std::vector<double> leaders = dp.gather(leader ? 1.0 : 0.0);
  int count = 0;
  for (double l : leaders) count += l > 0;
  if (count < 2) return std::nullopt;  // one node: nothing to share
  const std::string prefix = output_dir + "/.runner-node-" + std::to_string(static_cast<long>(tokens[0])) + "-";
  const std::string mine = prefix + std::to_string(dp.rank());
  if (leader) {
    io::make_dirs(output_dir);
    std::ofstream(mine) << dp.rank() << "\n";
  }
  dp.barrier();  // every marker written
  double seen = 0;
  if (leader)
    for (size_t r = 0; r < leaders.size(); ++r)
      if (leaders[r] > 0 && static_cast<int>(r) != dp.rank() && io::path_exists(prefix + std::to_string(r))) seen += 1;
  std::vector<double> total{seen};
  dp.sum(total);  // every leader has looked
  if (leader) std::remove(mine.c_str());
  return total[0] > 0;
}

}  // namespace

void check_output_dir_sharing(TrainingArguments& args, const dist::DataParallel& dp, int local_rank) {
  if (dp.world() == 1) return;
  // ZeRO's sharded checkpoints: every rank writes its shard file into output_dir and rank 0
  // moves them all into the checkpoint, which needs a folder the nodes share.
  const bool sharded_saves = dp.sharded_state() && !args.save_on_each_node && !args.save_only_model && args.save_strategy != "no";
  if (!args.save_on_each_node && !sharded_saves) return;
  const std::optional<bool> shared = leaders_share(args.output_dir, dp, local_rank);
  if (!shared) return;
  if (args.save_on_each_node && *shared) {
    if (dp.rank() == 0)
      log::warn("save_on_each_node: the first processes of different nodes see one another's files in " + args.output_dir +
                ", a folder the nodes share: each node would write the same checkpoints into it, so rank 0 writes them once (save_on_each_node is off "
                "for this run). save_on_each_node is for node-local disks; on a shared filesystem leave it false");
    args.save_on_each_node = false;
  }
  // Every rank knows it (the count is summed): rank 0 says it, the others stop quietly.
  if (sharded_saves && !*shared)
    throw ArgumentError(dp.rank() != 0 ? "" : "args.output_dir: the nodes do not share " + args.output_dir +
                        " (each node's first process sees only its own files there), and sharded checkpoints (ZeRO/FSDP over several "
                        "ranks) gather every rank's shard file into it: use a folder the nodes share, or set save_on_each_node = true "
                        "for node-local disks (each node then saves the gathered state), or save_only_model = true");
}

}  // namespace runner::train
