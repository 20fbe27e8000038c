// runner launch: mpiexec as a child, not an exec, for two reasons measured with MPICH 4.0.2's
// hydra. (1) main() blocks the stop signals for its signal thread and an exec'd mpiexec would
// inherit the mask; here the signal thread passes them on. (2) After a signal, hydra's
// mpiexec exits 0 in about one run in four (9 of 38 here) although every rank exited 75 (it
// counts only the codes its proxies reported), so a requeue loop would take a preempted job
// for a finished one (Ctrl-C's 130 is lost the same way): rank 0 also writes its code to a
// file the launcher names when a signal ends it, and the launcher trusts that file when
// mpiexec says 0.
#include <pthread.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/prctl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/cli/commands.h"
#include "runtime/cli/interrupt.h"
#include "runtime/cli/launch_hosts.h"
#include "runtime/cli/launch_watch.h"
#include "runtime/config/accelerate_config.h"
#include "runtime/core/errors.h"
#include "runtime/core/stop_request.h"
#include "runtime/dist/fault_monitor.h"

namespace runner::cli {

namespace {

// How `runner launch` was given (for the ranks' resume line) and where rank 0 reports a
// preemption: both passed to the ranks in the environment (mpiexec passes it on).
constexpr const char* kLaunchCommandVariable = "RUNNER_LAUNCH_COMMAND";
constexpr const char* kLaunchStatusVariable = "RUNNER_LAUNCH_STATUS";

std::string shell_quoted(const std::string& v) {
  if (!v.empty() && v.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:=,+-@%") == std::string::npos) return v;
  std::string q = "'";
  for (char c : v) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string temp_status_file() {
  const char* dir = std::getenv("TMPDIR");
  std::string path = std::string(dir && *dir ? dir : "/tmp") + "/runner-launch-XXXXXX";
  const int fd = ::mkstemp(path.data());
  if (fd < 0) return "";
  ::close(fd);
  return path;
}

}  // namespace

namespace {

// The MPI plugin this srun step used (Slurm sets SLURM_MPI_TYPE in every task): a resume
// line without it fails where the cluster's default is none.
std::string srun_mpi_option() {
  const char* type = std::getenv("SLURM_MPI_TYPE");
  return type && *type && std::string(type) != "none" ? "--mpi=" + std::string(type) + " " : "";
}

}  // namespace

std::string resume_command(const CommandLine& cl, const dist::World& world) {
  std::string command;
  if (const char* launched = std::getenv(kLaunchCommandVariable); launched && *launched && world.size > 1) command = launched;
  else if (world.size > 1 && world.launcher == "srun") command = "srun " + srun_mpi_option() + "-n " + std::to_string(world.size) + " runner";
  else if (world.size > 1) command = "mpiexec -n " + std::to_string(world.size) + " runner";
  else command = "runner";
  command += " " + shell_quoted(cl.recipe);
  for (const auto& token : cl.replay_args) command += " " + shell_quoted(token);
  return command;
}

std::string launch_ranks_folder() {
  const char* path = std::getenv(kLaunchStatusVariable);
  return path && *path ? std::string(path) + ".ranks" : "";
}

void report_exit_to_launcher(int code) {
  dist::leave_launch_folder();  // the stop explains the end: the launcher's watch adds nothing
  const char* path = std::getenv(kLaunchStatusVariable);
  // Only where the file exists: rank 0 may run on another node than the launcher. Plain
  // write(2): the signal thread calls this right before _Exit.
  if (!path || !*path || ::access(path, W_OK) != 0) return;
  const int fd = ::open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) return;
  const std::string text = std::to_string(code) + "\n";
  if (::write(fd, text.data(), text.size()) < 0) {
    // the launcher then reports mpiexec's own code
  }
  ::close(fd);
}

namespace {

// One mpiexec run: its exit code, or rank 0's reported one where hydra lost it (above).
int run_launcher(const std::string& launcher, std::vector<std::string> argv_s, const std::string& status_file) {
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  if (!status_file.empty()) std::ofstream(status_file, std::ios::trunc).flush();  // a restart's slate is clean
  RankWatch watch(status_file.empty() ? "" : status_file + ".ranks");  // this attempt's ranks
  std::cout.flush();
  std::fflush(stderr);
  // exec's failure comes back through a pipe that a successful exec closes.
  int failed[2];
  if (::pipe2(failed, O_CLOEXEC) != 0) throw DistError("runner launch: cannot create a pipe");
  const pid_t launcher_pid = ::getpid();
  const pid_t child = ::fork();
  if (child < 0) throw DistError("runner launch: cannot start " + launcher);
  if (child == 0) {
    sigset_t stops;  // main() blocked them for its signal thread; mpiexec must see them
    sigemptyset(&stops);
    sigaddset(&stops, SIGINT);
    sigaddset(&stops, SIGTERM);
    sigaddset(&stops, SIGUSR1);
    pthread_sigmask(SIG_UNBLOCK, &stops, nullptr);
    // A launcher killed outright (SIGKILL) takes the job down as an exec'd mpiexec would:
    // mpiexec gets SIGTERM, so the ranks save and stop.
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != launcher_pid) ::_exit(128 + SIGTERM);
    ::execvp(launcher.c_str(), argv.data());
    const int error = errno;
    if (::write(failed[1], &error, sizeof error) < 0) {
      // the parent then reports mpiexec's exit code (127)
    }
    ::_exit(127);
  }
  ::close(failed[1]);
  forward_signals_to(child);
  int exec_error = 0;
  const bool exec_failed = ::read(failed[0], &exec_error, sizeof exec_error) == static_cast<ssize_t>(sizeof exec_error);
  ::close(failed[0]);
  int status = 0;
  for (;;) {  // polling: the watch looks at the ranks meanwhile
    const pid_t done = ::waitpid(child, &status, WNOHANG);
    if (done == child || (done < 0 && errno != EINTR)) break;
    watch.poll();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  watch.poll();  // a rank that died in the last moments
  forward_signals_to(0);
  int reported = 0;
  if (!status_file.empty()) std::ifstream(status_file) >> reported;
  if (exec_failed)
    throw DistError("runner launch: cannot run " + launcher + ": " + std::strerror(exec_error) + " (install mpich, or set RUNNER_MPIEXEC)");
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  if (const std::string died = watch.report(code); !died.empty()) {
    // A distributed fault is a runtime error (exit 1), whatever code mpiexec made of it.
    std::fprintf(stderr, "runner: error: %s\n", died.c_str());
    std::fflush(stderr);
    return 1;
  }
  return code == 0 && reported != 0 ? reported : code;
}

// Whether an exit code is a failure a restart may cure: not success, a user error (2: the same
// recipe fails the same way), a preemption stop (75) or a stop by a signal (130/138/143).
bool restartable(int code) {
  return code != 0 && code != 2 && code != kPreemptedExitCode && code != 128 + SIGINT && code != 128 + SIGTERM && code != 128 + SIGUSR1;
}

// The run's own arguments for a restart: resume_from_checkpoint becomes "auto" (the newest
// intact checkpoint, or a fresh start when the first one was never written).
std::vector<std::string> restart_args(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--resume_from_checkpoint") {
      ++i;
      continue;
    }
    if (args[i].rfind("--resume_from_checkpoint=", 0) == 0) continue;
    out.push_back(args[i]);
  }
  out.insert(out.end(), {"--resume_from_checkpoint", "auto"});
  return out;
}

constexpr double kHostProbeSeconds = 30;

}  // namespace

int launch(const CommandLine& cl) {
  char self[PATH_MAX];
  const ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (len <= 0) throw DistError("runner launch: cannot find the runner executable (/proc/self/exe)");
  self[len] = '\0';
  const std::string launcher = std::getenv("RUNNER_MPIEXEC") && *std::getenv("RUNNER_MPIEXEC") ? std::getenv("RUNNER_MPIEXEC") : "mpiexec";
  int ranks = cl.launch_ranks;
  if (ranks == 0) {  // accelerate launch --config_file: the rank count is the file's num_processes
    const config::AccelerateConfig acc = config::read_accelerate_config(cl.accelerate_config);
    if (!acc.num_processes) throw ArgumentError("runner launch: give -n N, or num_processes in the accelerate config", cl.accelerate_config);
    ranks = *acc.num_processes;
  }
  if (cl.min_ranks > ranks)
    throw ArgumentError("runner launch: --min_ranks " + std::to_string(cl.min_ranks) + " is more than the " + std::to_string(ranks) + " ranks asked for",
                        "command line");
  std::string as_given = "runner launch";
  for (const auto& token : cl.launch_options) as_given += " " + shell_quoted(token);
  setenv(kLaunchCommandVariable, as_given.c_str(), 1);
  if (cl.nnodes) setenv(kLaunchNodesVariable, std::to_string(cl.nnodes).c_str(), 1);
  // torchrun's variables a batch script may have exported describe another launch: the ranks
  // check WORLD_SIZE, RANK and LOCAL_RANK against MPI's view (world.h), so none goes down.
  for (const char* stale : {"WORLD_SIZE", "RANK", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "NODE_RANK", "GROUP_RANK"}) unsetenv(stale);
  const std::string status_file = temp_status_file();
  if (!status_file.empty()) setenv(kLaunchStatusVariable, status_file.c_str(), 1);

  int attempt_ranks = ranks;
  std::vector<std::string> launcher_args = cl.launcher_args, run_args = cl.launch_args;
  int code = 0;
  for (int restart = 0;; ++restart) {
    std::vector<std::string> argv_s{launcher, "-n", std::to_string(attempt_ranks)};
    argv_s.insert(argv_s.end(), launcher_args.begin(), launcher_args.end());
    argv_s.push_back(self);
    argv_s.insert(argv_s.end(), run_args.begin(), run_args.end());
    code = run_launcher(launcher, argv_s, status_file);
    if (!restartable(code) || stop_signal_forwarded() || cl.max_restarts == 0) break;
    if (restart == cl.max_restarts) {
      std::fprintf(stderr, "runner launch: the job failed again (exit %d) and its %d restart%s are used up\n", code, cl.max_restarts,
                   cl.max_restarts == 1 ? "" : "s");
      break;
    }
    std::string where;
    if (cl.min_ranks) {
      // The job's hosts again (the hostfile may have lost a node), minus the ones that do not answer.
      const auto hosts = read_launch_hosts(cl.hostfile, cl.hosts, cl.ppn);
      if (!hosts.empty()) {
        std::vector<std::string> dropped;
        const auto live = live_hosts(hosts, launcher, cl.launcher_args, kHostProbeSeconds, dropped);
        int slots = 0;
        for (const auto& h : live) slots += h.slots;
        attempt_ranks = restart_ranks(ranks, slots, cl.min_ranks);
        std::string lost;
        for (const auto& d : dropped) lost += (lost.empty() ? "" : ", ") + d;
        if (attempt_ranks == 0) {
          std::fprintf(stderr, "runner launch: the job failed (exit %d) and the hosts left hold %d rank%s, fewer than --min_ranks %d%s\n", code, slots,
                       slots == 1 ? "" : "s", cl.min_ranks, lost.empty() ? "" : ("; gone: " + lost).c_str());
          break;
        }
        launcher_args = with_hosts(cl.launcher_args, live);
        if (attempt_ranks < ranks) where = " on " + std::to_string(attempt_ranks) + " of its " + std::to_string(ranks) + " ranks";
        if (!lost.empty()) where += " (gone: " + lost + ")";
      }
    }
    // The ranks keep the planned global batch on fewer ranks (prepare_run.cpp).
    if (attempt_ranks < ranks) setenv(kPlannedRanksVariable, std::to_string(ranks).c_str(), 1);
    else unsetenv(kPlannedRanksVariable);
    run_args = restart_args(cl.launch_args);
    std::fprintf(stderr, "runner launch: the job failed (exit %d); restart %d of %d%s from the newest checkpoint\n", code, restart + 1,
                 cl.max_restarts, where.c_str());
  }
  if (!status_file.empty()) std::remove(status_file.c_str());
  return code;
}

}  // namespace runner::cli
