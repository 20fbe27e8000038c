#include "runtime/dist/blocking_call.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

#include <mpi.h>

namespace runner::dist {

namespace {

using Clock = std::chrono::steady_clock;
std::atomic<double> g_timeout{1800};
std::atomic<int64_t> g_since{0};  // Clock ticks when the current call began; 0 = none
std::atomic<const char*> g_what{""};
std::atomic<int> g_rank{0};
std::atomic<bool> g_mpi_usable{true};  // false inside MPI_Finalize: MPI_Abort is refused there  // read at the call's start: MPI may not answer during MPI_Finalize
std::once_flag g_started;

void watch() {
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const int64_t since = g_since.load();
    if (since == 0) continue;
    const double waited = std::chrono::duration<double>(Clock::now().time_since_epoch() - Clock::duration(since)).count();
    if (waited <= g_timeout.load()) continue;
    std::fprintf(stderr, "runner: error: rank %d waited %.0f s in %s (ddp_timeout = %g s): a peer died or is stuck; aborting every rank\n",
                 g_rank.load(), waited, g_what.load(), g_timeout.load());
    std::fflush(stderr);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // let the launcher forward the line
    if (!g_mpi_usable) std::_Exit(1);  // the launcher sees the exit and stops the other ranks
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

}  // namespace

BlockingCall::BlockingCall(const char* what, bool mpi_usable) {
  g_mpi_usable = mpi_usable;
  std::call_once(g_started, [] { std::thread(watch).detach(); });
  int up = 0, down = 0, rank = 0;
  MPI_Initialized(&up);
  MPI_Finalized(&down);
  if (up && !down) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  g_rank = rank;
  g_what = what;
  g_since = Clock::now().time_since_epoch().count();
}

BlockingCall::~BlockingCall() { g_since = 0; }

void set_blocking_timeout(double seconds) {
  if (seconds > 0) g_timeout = seconds;
}

}  // namespace runner::dist
