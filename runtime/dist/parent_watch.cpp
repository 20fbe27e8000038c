#include "runtime/dist/parent_watch.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "runtime/dist/fault_monitor.h"

namespace runner::dist {

void watch_process_manager(pid_t manager, bool manager_is_a_proxy) {
  // 0: the parent is outside this PID namespace (the rank is its namespace's init: a container
  // per task); 1: init, which is the launcher itself where it is a container's PID 1 and forks
  // ranks directly (Open MPI's mpirun). Neither can be watched. Under hydra or srun a proxy
  // (hydra_pmi_proxy, slurmstepd) always sits between, so init as the parent means it is gone.
  if (manager <= 1) {
    if (manager == 1 && manager_is_a_proxy) {
      std::fprintf(stderr, "runner: the process manager that started this rank was gone before it started: the job has failed\n");
      ::kill(::getpid(), SIGKILL);
    }
    return;
  }
  // Polled rather than PR_SET_PDEATHSIG: that fires when the *thread* that forked us ends,
  // and slurmstepd forks tasks from threads that end while it lives on.
  std::thread([manager] {
    while (::getppid() == manager) std::this_thread::sleep_for(std::chrono::milliseconds(200));
    dump_own_flight_record("the process manager that started this rank (pid " + std::to_string(manager) + ") is gone: the job has failed");
    ::kill(::getpid(), SIGKILL);
  }).detach();
}

}  // namespace runner::dist
