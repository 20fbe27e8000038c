#include "runtime/dist/parent_watch.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "runtime/dist/fault_monitor.h"

namespace runner::dist {

void watch_process_manager() {
  // Polled rather than PR_SET_PDEATHSIG: that fires when the *thread* that forked us ends,
  // and slurmstepd forks tasks from threads that end while it lives on.
  const pid_t manager = ::getppid();
  if (manager <= 1) return;  // already orphaned or started by init: nothing to watch
  std::thread([manager] {
    while (::getppid() == manager) std::this_thread::sleep_for(std::chrono::milliseconds(200));
    dump_own_flight_record("the process manager that started this rank (pid " + std::to_string(manager) + ") is gone: the job has failed");
    ::kill(::getpid(), SIGKILL);
  }).detach();
}

}  // namespace runner::dist
