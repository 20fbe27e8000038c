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

std::string resume_command(const CommandLine& cl, const dist::World& world) {
  std::string command;
  if (const char* launched = std::getenv(kLaunchCommandVariable); launched && *launched && world.size > 1) command = launched;
  else if (world.size > 1) command = (world.launcher == "srun" ? "srun -n " : "mpiexec -n ") + std::to_string(world.size) + " runner";
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

int launch(const CommandLine& cl) {
  char self[PATH_MAX];
  const ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (len <= 0) throw DistError("runner launch: cannot find the runner executable (/proc/self/exe)");
  self[len] = '\0';
  const char* launcher = std::getenv("RUNNER_MPIEXEC") && *std::getenv("RUNNER_MPIEXEC") ? std::getenv("RUNNER_MPIEXEC") : "mpiexec";
  int ranks = cl.launch_ranks;
  if (ranks == 0) {  // accelerate launch --config_file: the rank count is the file's num_processes
    const config::AccelerateConfig acc = config::read_accelerate_config(cl.accelerate_config);
    if (!acc.num_processes) throw ArgumentError("runner launch: give -n N, or num_processes in the accelerate config", cl.accelerate_config);
    ranks = *acc.num_processes;
  }
  std::vector<std::string> argv_s{launcher, "-n", std::to_string(ranks)};
  argv_s.insert(argv_s.end(), cl.launcher_args.begin(), cl.launcher_args.end());
  argv_s.push_back(self);
  argv_s.insert(argv_s.end(), cl.launch_args.begin(), cl.launch_args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::string as_given = "runner launch";
  for (const auto& token : cl.launch_options) as_given += " " + shell_quoted(token);
  setenv(kLaunchCommandVariable, as_given.c_str(), 1);
  const std::string status_file = temp_status_file();
  if (!status_file.empty()) setenv(kLaunchStatusVariable, status_file.c_str(), 1);
  RankWatch watch(status_file.empty() ? "" : status_file + ".ranks");
  std::cout.flush();
  std::fflush(stderr);
  // exec's failure comes back through a pipe that a successful exec closes.
  int failed[2];
  if (::pipe2(failed, O_CLOEXEC) != 0) throw DistError("runner launch: cannot create a pipe");
  const pid_t launcher_pid = ::getpid();
  const pid_t child = ::fork();
  if (child < 0) throw DistError("runner launch: cannot start " + std::string(launcher));
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
    ::execvp(launcher, argv.data());
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
  if (!status_file.empty()) {
    std::ifstream(status_file) >> reported;
    std::remove(status_file.c_str());
  }
  if (exec_failed)
    throw DistError(std::string("runner launch: cannot run ") + launcher + ": " + std::strerror(exec_error) + " (install mpich, or set RUNNER_MPIEXEC)");
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

}  // namespace runner::cli
