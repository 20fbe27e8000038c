// runner launch --min_ranks: before a restart, which of the job's hosts still answer and how
// many ranks they hold. The host list is read again each time (-f HOSTFILE may have been
// edited by a scheduler or an operator to drop a lost node), and every host is probed with a
// one-rank `mpiexec -hosts HOST -n 1 true` under a deadline, in parallel, so a node that is
// gone (its launcher cannot reach it, or never comes back) is left out of the restart.
#pragma once
#include <string>
#include <vector>

namespace runner::cli {

struct LaunchHost {
  std::string name;
  int slots = 1;  // ranks it may hold: -ppn, or host:N, or 1
};

// The hosts of -f FILE (MPICH's `host[:N]` lines, # comments) or of --hosts "a,b:2"; `ppn` > 0
// sets every host's slots. Empty when the job names no hosts (all ranks on this machine).
std::vector<LaunchHost> read_launch_hosts(const std::string& hostfile, const std::string& hosts, int ppn);

// The hosts that ran `true` through `launcher` (with `launcher_args`, minus its host options)
// within `timeout_s`; `dropped` gets one "host (why)" per host left out.
std::vector<LaunchHost> live_hosts(const std::vector<LaunchHost>& hosts, const std::string& launcher,
                                   const std::vector<std::string>& launcher_args, double timeout_s, std::vector<std::string>& dropped);

// mpiexec options for exactly `hosts`: launcher_args without -f/-hosts, then -hosts a:N,b:M.
std::vector<std::string> with_hosts(const std::vector<std::string>& launcher_args, const std::vector<LaunchHost>& hosts);

// The rank count for a restart on `available` slots: the largest count <= available that
// divides `planned`, so gradient accumulation can keep the global batch (planned / count
// times as many micro-batches per rank). 0 when none is >= `min_ranks`.
int restart_ranks(int planned, int available, int min_ranks);

}  // namespace runner::cli
