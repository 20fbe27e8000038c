// runner launch's watch over its ranks, for the one fault no rank can explain: a rank that
// dies without a word (SIGKILL, the out-of-memory killer), after which MPICH's mpiexec kills
// every other rank at once. Each rank on the launcher's node keeps its latest flight record
// in a folder the launcher makes (dist/fault_monitor.h); the launcher watches their
// processes and, when the job fails, names the first rank that died while the others still
// ran, with its step, phase and last collective, and copies the records to the run's
// flight_record folder. The order of deaths comes from the kernel (a pidfd per rank in one
// epoll set, whose ready list keeps the order the processes exited in), so a launcher that
// looks late, after mpiexec has killed the rest too, still names the first.
#pragma once
#include <map>
#include <string>

namespace runner::cli {

class RankWatch {
 public:
  explicit RankWatch(std::string folder);  // made here; "" = no watch
  ~RankWatch();                            // removes the folder and what is left in it
  RankWatch(const RankWatch&) = delete;
  RankWatch& operator=(const RankWatch&) = delete;
  void poll();  // call often (every 10 ms) while the job runs
  // After the job ended with `code`: the error line for a rank that died silently first ("" if
  // none did, or it spoke for itself).
  std::string report(int code);

 private:
  struct Rank {
    int pid = 0;
    std::string record;  // its latest flight record (JSON text)
  };
  void watch_pid(int rank, int pid);
  std::string folder_;
  std::map<int, Rank> ranks_;
  int epoll_ = -1;                 // the ranks' pidfds; -1: no pidfd support, poll the pids
  std::map<int, int> pidfds_;      // rank → pidfd, while the rank runs
  std::map<int, int> watched_pid_; // rank → the pid its pidfd refers to
  int first_dead_ = -1;
  int looks_ = 0;
};

}  // namespace runner::cli
