#include "runtime/dist/parent_watch.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "runtime/dist/fault_monitor.h"

namespace runner::dist {

void watch_process_manager(pid_t manager) {
  if (manager <= 1) {  // orphaned before main: nothing recorded yet, one line says why
    std::fprintf(stderr, "runner: the process manager that started this rank was gone before it started: the job has failed\n");
    ::kill(::getpid(), SIGKILL);
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
