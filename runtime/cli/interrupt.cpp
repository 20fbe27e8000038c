#include "runtime/cli/interrupt.h"

#include <pthread.h>
#include <signal.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <thread>

#include "runtime/cli/commands.h"
#include "runtime/core/stop_request.h"
#include "runtime/io/checkpoint.h"
#include "runtime/io/dir_lock.h"

namespace runner::cli {

namespace {
// The signal thread may run while the process exits (a second SIGTERM as main returns):
// its state is never destroyed, so it cannot read strings static destructors have freed
// (that printed garbage bytes once, under load).
struct InterruptState {
  std::mutex mu;
  std::string output_dir, resume;
  int rank = 0;
  bool checkpoint_on_stop = false;
  pid_t forward_to = 0;  // runner launch: mpiexec's pid
  bool forwarded = false;  // runner launch passed a stop signal on
};
InterruptState& state() {
  static InterruptState* s = new InterruptState;
  return *s;
}

std::string where_to_resume() {
  InterruptState& g = state();
  std::lock_guard<std::mutex> lock(g.mu);
  if (g.output_dir.empty()) return "";
  const auto last = io::last_checkpoint(g.output_dir);
  return last ? "; the last checkpoint is " + *last + ": resume with `" + g.resume + " --resume_from_checkpoint true`"
              : "; no checkpoint was written to " + g.output_dir + " yet";
}

void say(const std::string& line) {
  int rank = 0;
  {
    std::lock_guard<std::mutex> lock(state().mu);
    rank = state().rank;
  }
  if (rank == 0) std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
}

bool rank_zero() {
  std::lock_guard<std::mutex> lock(state().mu);
  return state().rank == 0;
}

const char* name_of(int sig) { return sig == SIGTERM ? "SIGTERM" : sig == SIGUSR1 ? "SIGUSR1" : "SIGINT"; }

constexpr std::chrono::seconds kDuplicateWindow{2};

void wait_for_signals(sigset_t set) {
  std::optional<std::chrono::steady_clock::time_point> first_stop;  // this process's first stop signal
  for (;;) {
    siginfo_t info{};
    const int sig = sigwaitinfo(&set, &info);
    if (sig < 0) {
      if (errno == EINTR) continue;
      return;
    }
    bool checkpoint = false;
    pid_t forward_to = 0;
    {
      std::lock_guard<std::mutex> lock(state().mu);
      checkpoint = state().checkpoint_on_stop;
      forward_to = state().forward_to;
    }
    if (forward_to > 0) {
      // A terminal's Ctrl-C reached mpiexec too (one process group); a second SIGINT would
      // make it abort the ranks at once.
      if (!(sig == SIGINT && info.si_code == SI_KERNEL)) ::kill(forward_to, sig);
      std::lock_guard<std::mutex> lock(state().mu);
      state().forwarded = true;
      continue;
    }
    // Preemption: the first SIGTERM/SIGUSR1 during training finishes the step and saves; a
    // second one, Ctrl-C, or a stop outside training ends the process now. Copies that come
    // within kDuplicateWindow of the first are the same stop delivered twice (Slurm's time
    // limit signals every process of the job, and mpiexec forwards its own copy too).
    const auto now = std::chrono::steady_clock::now();
    if (sig != SIGINT && first_stop && now - *first_stop < kDuplicateWindow) continue;
    if (sig != SIGINT && checkpoint && stop_point_active() && !first_stop) {
      first_stop = now;
      if (!stop_requested()) request_stop(name_of(sig));  // else another rank's signal already did
      say(std::string("runner: ") + name_of(sig) + " received: saving a checkpoint after this optimizer step, then stopping "
          "(send it again to stop at once)");
      continue;
    }
    say(std::string("runner: ") + (sig == SIGINT ? "interrupted (Ctrl-C)" : std::string("stopped by ") + name_of(sig)) + where_to_resume());
    io::release_dir_locks();  // _Exit runs no destructors
    if (rank_zero()) report_exit_to_launcher(128 + sig);
    std::_Exit(128 + sig);  // as a shell reports it: 130 for SIGINT, 143 for SIGTERM
  }
}
}  // namespace

void install_interrupt_handler() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGUSR1);
  if (pthread_sigmask(SIG_BLOCK, &set, nullptr) != 0) return;  // threads made later inherit the mask
  std::thread(wait_for_signals, set).detach();
}

void set_interrupt_context(const std::string& output_dir, const std::string& resume_command, int rank, bool checkpoint_on_stop) {
  InterruptState& g = state();
  std::lock_guard<std::mutex> lock(g.mu);
  g.output_dir = output_dir;
  g.resume = resume_command;
  g.rank = rank;
  g.checkpoint_on_stop = checkpoint_on_stop;
}

std::string resume_hint() { return where_to_resume(); }

void forward_signals_to(pid_t pid) {
  std::lock_guard<std::mutex> lock(state().mu);
  state().forward_to = pid;
}

bool stop_signal_forwarded() {
  std::lock_guard<std::mutex> lock(state().mu);
  return state().forwarded;
}

}  // namespace runner::cli
