// An advisory lock on an output folder for the lifetime of a run (flock on
// <dir>/.runner.lock, released by the kernel even when the process is killed): a second run
// into the same folder fails at once, instead of both interleaving checkpoints. With the
// lock held, leftovers of crashed saves (".tmp-*") can be swept safely. The file is removed
// while still locked when the run ends, so no output folder keeps it; a taker checks that
// the file it locked is still the one at the path (else it lost a race with a removal and
// tries again), and a file left by a killed run is simply locked again.
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

// Removes the lock files this process holds (and releases them): for exits that skip
// destructors (a stop signal's _Exit, MPI_Abort after an error). Safe from any thread.
void release_dir_locks();

// Removes "<dir>/.tmp-*" files and folders (only call while holding the DirLock); returns
// how many it removed.
int sweep_temporaries(const std::string& dir);

}  // namespace runner::io
