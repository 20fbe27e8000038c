#include "runtime/train/shared_folder_check.h"

#include <cstdio>
#include <fstream>
#include <random>
#include <vector>

#include "runtime/dist/data_parallel.h"
#include "runtime/io/atomic_file.h"
#include "runtime/log/log.h"

namespace runner::train {

bool check_node_local_storage(const std::string& output_dir, bool save_on_each_node, const dist::DataParallel& dp, int local_rank) {
  if (!save_on_each_node || dp.world() == 1) return false;
  const bool leader = local_rank == 0;
  // Rank 0's token names this run's markers: a marker a killed run left behind (on a disk
  // that was another node's last time) cannot pass for a live one.
  const std::vector<double> tokens = dp.gather(static_cast<double>(std::random_device{}() & 0xffffff));
  const std::vector<double> leaders = dp.gather(leader ? 1.0 : 0.0);
  int count = 0;
  for (double l : leaders) count += l > 0;
  if (count < 2) return false;  // one node: nothing to share
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
  const bool shared = total[0] > 0;
  if (shared && dp.rank() == 0)
    log::warn("save_on_each_node: the first processes of different nodes see one another's files in " + output_dir +
              ", a folder the nodes share: each node would write the same checkpoints into it, so rank 0 writes them once (save_on_each_node is off "
              "for this run). save_on_each_node is for node-local disks; on a shared filesystem leave it false");
  return shared;
}

}  // namespace runner::train
