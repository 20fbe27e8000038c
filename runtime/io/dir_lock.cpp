#include "runtime/io/dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <mutex>
#include <string>

#include "runtime/core/errors.h"
#include "runtime/io/atomic_file.h"

namespace runner::io {

namespace fs = std::filesystem;

namespace {

// Locks this process already holds (flock would refuse a second descriptor of our own):
// several Trainers of one process may share a folder, one after another or at once.
std::mutex mutex;
// Never destroyed: the signal thread may release the locks while the process exits.
std::map<std::string, std::pair<int, int>>& held() {  // path → (fd, count)
  static auto* m = new std::map<std::string, std::pair<int, int>>;
  return *m;
}

}  // namespace

DirLock::DirLock(const std::string& dir) {
  make_dirs(dir);
  std::error_code ec;
  dir_ = fs::weakly_canonical(dir, ec).string();
  if (ec) dir_ = dir;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = held().find(dir_);
  if (it != held().end()) {
    ++it->second.second;
    fd_ = it->second.first;
    return;
  }
  const std::string path = dir_ + "/.runner.lock";
  for (;;) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) throw CheckpointError("cannot create the output folder's lock file", path);
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      char buf[32] = {0};
      const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
      ::close(fd);
      const std::string pid = n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string("unknown");
      throw ArgumentError("args.output_dir: \"" + dir + "\" is in use by another runner process (pid " + pid +
                          "); wait for it to finish or choose another output_dir");
    }
    // The holder removes the file before it lets go: a lock taken on a removed file is no
    // lock (a third run would create a new file and lock that one too).
    struct stat locked {}, at_path {};
    if (::fstat(fd, &locked) != 0 || ::stat(path.c_str(), &at_path) != 0 || locked.st_ino != at_path.st_ino || locked.st_dev != at_path.st_dev) {
      ::close(fd);
      continue;
    }
    const std::string pid = std::to_string(::getpid());
    if (::ftruncate(fd, 0) == 0 && ::pwrite(fd, pid.data(), pid.size(), 0) < 0) {
      // the pid is only a hint in the message above
    }
    fd_ = fd;
    held()[dir_] = {fd, 1};
    return;
  }
}

DirLock::~DirLock() {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = held().find(dir_);
  if (it == held().end() || --it->second.second > 0) return;
  ::unlink((dir_ + "/.runner.lock").c_str());  // still locked: see the constructor
  ::close(it->second.first);
  held().erase(it);
}

void release_dir_locks() {
  std::lock_guard<std::mutex> lock(mutex);
  for (const auto& [dir, entry] : held()) {
    ::unlink((dir + "/.runner.lock").c_str());
    ::close(entry.first);
  }
  held().clear();
}

int sweep_temporaries(const std::string& dir) {
  int removed = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().filename().string().rfind(".tmp-", 0) != 0) continue;
    std::error_code rm;
    fs::remove_all(entry.path(), rm);
    if (!rm) ++removed;
  }
  return removed;
}

}  // namespace runner::io
