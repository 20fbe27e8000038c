#include "runtime/cli/interrupt.h"

#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "runtime/io/checkpoint.h"

namespace runner::cli {

namespace {
std::mutex g_mu;
std::string g_output_dir, g_resume;
int g_rank = 0;

void wait_for_interrupt(sigset_t set) {
  int sig = 0;
  if (sigwait(&set, &sig) != 0) return;
  std::string line = "runner: interrupted (Ctrl-C)";
  int rank = 0;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    rank = g_rank;
    if (!g_output_dir.empty()) {
      const auto last = io::last_checkpoint(g_output_dir);
      line += last ? "; the last checkpoint is " + *last + ": resume with `" + g_resume + " --resume_from_checkpoint true`"
                   : "; no checkpoint was written to " + g_output_dir + " yet";
    }
  }
  if (rank == 0) std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
  std::_Exit(130);  // 128 + SIGINT, as a shell reports it
}
}  // namespace

void install_interrupt_handler() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  if (pthread_sigmask(SIG_BLOCK, &set, nullptr) != 0) return;  // threads made later inherit the mask
  std::thread(wait_for_interrupt, set).detach();
}

void set_interrupt_context(const std::string& output_dir, const std::string& resume_command, int rank) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_output_dir = output_dir;
  g_resume = resume_command;
  g_rank = rank;
}

}  // namespace runner::cli
