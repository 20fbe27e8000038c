// An advisory lock on an output folder for the lifetime of a run (flock on
// <dir>/.runner.lock, released by the kernel even when the process is killed): a second run
// into the same folder fails at once, instead of both interleaving checkpoints. With the
// lock held, leftovers of crashed saves (".tmp-*") can be swept safely.
#pragma once
#include <string>

namespace runner::io {

class DirLock {
 public:
  explicit DirLock(const std::string& dir);  // ArgumentError naming the holder's pid when taken
  ~DirLock();
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;

 private:
  std::string dir_;
  int fd_ = -1;
};

// Removes "<dir>/.tmp-*" files and folders (only call while holding the DirLock); returns
// how many it removed.
int sweep_temporaries(const std::string& dir);

}  // namespace runner::io
