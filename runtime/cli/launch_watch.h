// runner launch's watch over its ranks, for the one fault no rank can explain: a rank that
// dies without a word (SIGKILL, the out-of-memory killer), after which MPICH's mpiexec kills
// every other rank at once. Each rank on the launcher's node keeps its latest flight record
// in a folder the launcher makes (dist/fault_monitor.h); the launcher polls which of their
// processes still exist, and when the job fails it names the first rank that vanished while
// the others still ran, with its step, phase and last collective, and copies the records to
// the run's flight_record folder.
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
  std::string folder_;
  std::map<int, Rank> ranks_;
  int first_dead_ = -1;
  int looks_ = 0;
};

}  // namespace runner::cli
