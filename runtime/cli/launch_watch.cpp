#include "runtime/cli/launch_watch.h"

#include <signal.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace runner::cli {

namespace {

std::string read_text(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Gone, or a zombie its parent (hydra's proxy) has not reaped yet.
bool gone(int pid) {
  if (pid <= 0) return false;
  if (::kill(pid, 0) != 0) return errno == ESRCH;
  const std::string stat = read_text("/proc/" + std::to_string(pid) + "/stat");
  const auto paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] == 'Z';
}

}  // namespace

RankWatch::RankWatch(std::string folder) : folder_(std::move(folder)) {
  if (!folder_.empty() && ::mkdir(folder_.c_str(), 0700) != 0) folder_.clear();
  if (!folder_.empty()) epoll_ = ::epoll_create1(EPOLL_CLOEXEC);
}

RankWatch::~RankWatch() {
  std::error_code ec;
  if (!folder_.empty()) std::filesystem::remove_all(folder_, ec);
  for (const auto& [rank, fd] : pidfds_) ::close(fd);
  if (epoll_ >= 0) ::close(epoll_);
}

void RankWatch::watch_pid(int rank, int pid) {
  if (epoll_ < 0 || pid <= 0) return;
  const auto known = watched_pid_.find(rank);
  if (known != watched_pid_.end() && known->second == pid) return;
  watched_pid_[rank] = pid;
  if (const auto old = pidfds_.find(rank); old != pidfds_.end()) {
    ::close(old->second);
    pidfds_.erase(old);
  }
  // A pidfd turns readable when its process exits (zombie or not), whoever reaps it.
  const int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (fd < 0) return;  // already reaped: the pid polling below still sees it gone
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u32 = static_cast<uint32_t>(rank);
  if (::epoll_ctl(epoll_, EPOLL_CTL_ADD, fd, &ev) != 0) {
    ::close(fd);
    return;
  }
  pidfds_[rank] = fd;
}

void RankWatch::poll() {
  if (folder_.empty()) return;
  std::error_code ec;
  // Whether a process is gone is cheap to ask, the records are not: they are read every
  // tenth look, so a death is seen within a look (10 ms) and before mpiexec kills the rest.
  if (looks_++ % 10 == 0)
    for (const auto& e : std::filesystem::directory_iterator(folder_, ec)) {
      const std::string name = e.path().filename().string();
      if (name.rfind("rank-", 0) != 0 || e.path().extension() != ".json") continue;  // not a .tmp file
      const nlohmann::json j = nlohmann::json::parse(read_text(e.path()), nullptr, false);
      if (j.is_discarded() || !j.contains("rank") || !j.contains("pid")) continue;
      const int rank = j["rank"].get<int>();
      Rank& r = ranks_[rank];
      r.pid = j["pid"].get<int>();
      r.record = j.dump(2);
      watch_pid(rank, r.pid);
    }
  if (first_dead_ >= 0) return;
  // The kernel's order: epoll's ready list holds the exited ranks in the order they exited.
  if (epoll_ >= 0 && !pidfds_.empty()) {
    epoll_event events[64];
    const int n = ::epoll_wait(epoll_, events, 64, 0);
    for (int i = 0; i < n; ++i) {
      const int rank = static_cast<int>(events[i].data.u32);
      const auto fd = pidfds_.find(rank);
      if (fd == pidfds_.end()) continue;
      ::epoll_ctl(epoll_, EPOLL_CTL_DEL, fd->second, nullptr);
      ::close(fd->second);
      pidfds_.erase(fd);
      // A rank that ends or speaks for itself removes its file first: not a silent death.
      if (first_dead_ < 0 && std::filesystem::exists(folder_ + "/rank-" + std::to_string(rank) + ".json", ec)) first_dead_ = rank;
    }
    if (first_dead_ >= 0) return;
  }
  // A rank that ends or speaks for itself removes its file: one whose file is still there
  // while its process is gone died silently.
  // Two gone at one look (mpiexec is quick to kill the others): the one whose heartbeats
  // stopped first.
  std::filesystem::file_time_type oldest = std::filesystem::file_time_type::max();
  for (const auto& [rank, r] : ranks_) {
    const std::string file = folder_ + "/rank-" + std::to_string(rank) + ".json";
    if (pidfds_.count(rank) || !gone(r.pid) || !std::filesystem::exists(file, ec)) continue;  // watched by its pidfd
    const auto written = std::filesystem::last_write_time(file, ec);
    if (!ec && written < oldest) oldest = written, first_dead_ = rank;
  }
}

std::string RankWatch::report(int code) {
  // 0: done; 75, 130, 143, 138: a stop signal ended the job (the ranks exit at once on a
  // second one, or on Ctrl-C: not a death to explain).
  if (first_dead_ < 0 || code == 0 || code == 75 || code == 130 || code == 143 || code == 138) return "";
  std::error_code any;
  for (const auto& e : std::filesystem::directory_iterator(folder_, any))
    if (e.path().filename().string().rfind("spoke-", 0) == 0) return "";  // a rank explained it
  const nlohmann::json dead = nlohmann::json::parse(ranks_[first_dead_].record, nullptr, false);
  if (dead.is_discarded()) return "";
  // The records go where the ranks would have written theirs.
  const std::string target = dead.value("flight_record_folder", "");
  std::error_code ec;
  if (!target.empty()) std::filesystem::create_directories(target, ec);
  for (const auto& [rank, r] : ranks_) {
    if (target.empty() || ec) break;
    nlohmann::json j = nlohmann::json::parse(r.record, nullptr, false);
    if (j.is_discarded()) continue;
    j["reason"] = "the launcher's copy of this rank's last heartbeat: rank " + std::to_string(first_dead_) + " died without a word";
    std::ofstream(target + "/rank-" + std::to_string(rank) + ".json") << j.dump(2) << "\n";
  }
  std::string last = "none yet";
  if (dead.contains("entries") && !dead["entries"].empty()) {
    const auto& e = dead["entries"].back();
    last = "#" + std::to_string(e.value("seq", 0)) + " " + e.value("op", std::string()) + " (" + e.value("dtype", std::string()) + ", " +
           std::to_string(e.value("numel", 0)) + " values, " + std::to_string(e.value("bytes", 0)) + " B, " + e.value("state", std::string()) + ")";
  }
  return "rank " + std::to_string(first_dead_) + " (pid " + std::to_string(dead.value("pid", 0)) +
         ") died without a word (killed by a signal, e.g. SIGKILL or the out-of-memory killer) at step " + std::to_string(dead.value("step", 0)) +
         ", phase " + dead.value("phase", std::string()) + "; its last collective " + last + "; mpiexec then stopped every rank (its exit code " +
         std::to_string(code) + ")" + (target.empty() || ec ? "" : "; flight records in " + target);
}

}  // namespace runner::cli
