#include "runtime/cli/launch_hosts.h"

#include <chrono>
#include <csignal>
#include <fstream>
#include <sstream>
#include <thread>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/core/errors.h"

namespace runner::cli {

namespace {

LaunchHost parse_host(const std::string& word, int ppn, const std::string& where) {
  LaunchHost h{word, 1};
  if (const auto colon = word.find(':'); colon != std::string::npos) {
    h.name = word.substr(0, colon);
    try {
      h.slots = std::stoi(word.substr(colon + 1));
    } catch (const std::exception&) {
      h.slots = 0;
    }
    if (h.slots < 1) throw ArgumentError("runner launch: \"" + word + "\" is not HOST or HOST:COUNT", where);
  }
  if (ppn > 0) h.slots = ppn;
  return h;
}

// mpiexec's option words that take a value naming hosts (dropped when a restart names them).
bool host_option(const std::string& w) { return w == "-f" || w == "-hostfile" || w == "-hosts" || w == "-host"; }

}  // namespace

std::vector<LaunchHost> read_launch_hosts(const std::string& hostfile, const std::string& hosts, int ppn) {
  std::vector<LaunchHost> out;
  if (!hostfile.empty()) {
    std::ifstream in(hostfile);
    if (!in) throw ArgumentError("runner launch: cannot read the hostfile " + hostfile, hostfile);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      line = line.substr(0, line.find('#'));
      std::istringstream words(line);
      std::string word;
      if (words >> word) out.push_back(parse_host(word, ppn, hostfile + ":" + std::to_string(n)));
    }
  } else if (!hosts.empty()) {
    std::istringstream list(hosts);
    for (std::string word; std::getline(list, word, ',');)
      if (!word.empty()) out.push_back(parse_host(word, ppn, "--hosts"));
  }
  return out;
}

std::vector<std::string> with_hosts(const std::vector<std::string>& launcher_args, const std::vector<LaunchHost>& hosts) {
  std::vector<std::string> out;
  for (size_t i = 0; i < launcher_args.size(); ++i) {
    if (host_option(launcher_args[i])) {
      ++i;  // and its value
      continue;
    }
    out.push_back(launcher_args[i]);
  }
  std::string list;
  for (const auto& h : hosts) list += (list.empty() ? "" : ",") + h.name + ":" + std::to_string(h.slots);
  out.insert(out.end(), {"-hosts", list});
  return out;
}

namespace {

// One probe per host, in parallel: each host's exit code, 128 + a signal, or -1 when it did
// not answer within the deadline (then killed with its process group).
std::vector<int> probe(const std::vector<LaunchHost>& hosts, const std::string& launcher, const std::vector<std::string>& launcher_args,
                       double timeout_s) {
  std::vector<pid_t> probes;
  for (const auto& h : hosts) {
    std::vector<std::string> words{launcher};
    for (const auto& w : with_hosts(launcher_args, {LaunchHost{h.name, 1}})) words.push_back(w);
    // -ppn from the job's options would ask for more than the one probe rank.
    for (size_t i = 0; i + 1 < words.size(); ++i)
      if (words[i] == "-ppn") words.erase(words.begin() + static_cast<long>(i), words.begin() + static_cast<long>(i + 2)), --i;
    words.insert(words.end(), {"-n", "1", "true"});
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::setpgid(0, 0);  // its own group, so a probe that hangs is killed with its children
      const int null = ::open("/dev/null", O_RDWR);
      ::dup2(null, 0), ::dup2(null, 1), ::dup2(null, 2);
      std::vector<char*> argv;
      for (auto& w : words) argv.push_back(w.data());
      argv.push_back(nullptr);
      ::execvp(argv[0], argv.data());
      ::_exit(127);
    }
    probes.push_back(pid);
  }
  std::vector<int> result(hosts.size(), -1);  // -1: still running
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (;;) {
    bool running = false;
    for (size_t i = 0; i < probes.size(); ++i) {
      if (result[i] != -1 || probes[i] < 0) continue;
      int status = 0;
      if (::waitpid(probes[i], &status, WNOHANG) == probes[i]) result[i] = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      else running = true;
    }
    if (!running || std::chrono::steady_clock::now() > deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  for (size_t i = 0; i < hosts.size(); ++i)
    if (probes[i] > 0 && result[i] == -1) {
      ::kill(-probes[i], SIGKILL);
      ::waitpid(probes[i], nullptr, 0);
    }
  return result;
}

}  // namespace

std::vector<LaunchHost> live_hosts(const std::vector<LaunchHost>& hosts, const std::string& launcher,
                                   const std::vector<std::string>& launcher_args, double timeout_s, std::vector<std::string>& dropped) {
  std::vector<int> result = probe(hosts, launcher, launcher_args, timeout_s);
  // A probe that failed fast is asked once more: hydra's own start-up can fail on a loaded
  // machine (a proxy's control socket closed under it: exit 141), and a host is dropped from
  // the job only when it fails twice. One that did not answer in time is not waited for again.
  std::vector<LaunchHost> again;
  for (size_t i = 0; i < hosts.size(); ++i)
    if (result[i] > 0) again.push_back(hosts[i]);
  if (!again.empty()) {
    const std::vector<int> second = probe(again, launcher, launcher_args, timeout_s);
    for (size_t i = 0, j = 0; i < hosts.size(); ++i)
      if (result[i] > 0) result[i] = second[j++];
  }
  std::vector<LaunchHost> live;
  for (size_t i = 0; i < hosts.size(); ++i) {
    if (result[i] == -1) {
      std::ostringstream seconds;
      seconds << timeout_s;
      dropped.push_back(hosts[i].name + " (no answer in " + seconds.str() + " s)");
    } else if (result[i] != 0) {
      dropped.push_back(hosts[i].name + " (the probe exited " + std::to_string(result[i]) + ")");
    } else {
      live.push_back(hosts[i]);
    }
  }
  return live;
}

int restart_ranks(int planned, int available, int min_ranks) {
  for (int r = std::min(planned, available); r >= std::max(1, min_ranks); --r)
    if (planned % r == 0) return r;
  return 0;
}

}  // namespace runner::cli
