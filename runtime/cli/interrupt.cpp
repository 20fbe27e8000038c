#include "runtime/cli/interrupt.h"

#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "runtime/core/stop_request.h"
#include "runtime/io/checkpoint.h"

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

const char* name_of(int sig) { return sig == SIGTERM ? "SIGTERM" : sig == SIGUSR1 ? "SIGUSR1" : "SIGINT"; }

void wait_for_signals(sigset_t set) {
  for (;;) {
    int sig = 0;
    if (sigwait(&set, &sig) != 0) return;
    bool checkpoint = false;
    {
      std::lock_guard<std::mutex> lock(state().mu);
      checkpoint = state().checkpoint_on_stop;
    }
    // Preemption: the first SIGTERM/SIGUSR1 during training finishes the step and saves; a
    // second one, Ctrl-C, or a stop outside training ends the process now.
    if (sig != SIGINT && checkpoint && stop_point_active() && !stop_requested()) {
      request_stop(name_of(sig));
      say(std::string("runner: ") + name_of(sig) + " received: saving a checkpoint after this optimizer step, then stopping "
          "(send it again to stop at once)");
      continue;
    }
    say(std::string("runner: ") + (sig == SIGINT ? "interrupted (Ctrl-C)" : std::string("stopped by ") + name_of(sig)) + where_to_resume());
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

}  // namespace runner::cli
