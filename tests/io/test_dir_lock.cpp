#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>

#include "runtime/io/dir_lock.h"

using namespace runner;
namespace fs = std::filesystem;

namespace {
fs::path temp_dir(const std::string& name) {
  auto dir = fs::temp_directory_path() / ("runner_dir_lock_" + std::to_string(::getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}
}  // namespace

TEST(DirLock, TheLockFileExistsWhileHeldAndGoesAtTheEnd) {
  const auto dir = temp_dir("held");
  {
    io::DirLock lock(dir.string());
    io::DirLock again(dir.string());  // one process may take its own folder twice
    std::ifstream in(dir / ".runner.lock");
    int pid = 0;
    in >> pid;
    EXPECT_EQ(pid, ::getpid());
  }
  EXPECT_FALSE(fs::exists(dir / ".runner.lock"));
}

TEST(DirLock, AFileLeftByAKilledRunIsTakenAndRemoved) {
  const auto dir = temp_dir("stale");
  std::ofstream(dir / ".runner.lock") << 999999;  // nobody holds a lock on it
  {
    io::DirLock lock(dir.string());
    EXPECT_TRUE(fs::exists(dir / ".runner.lock"));
  }
  EXPECT_FALSE(fs::exists(dir / ".runner.lock"));
}

TEST(DirLock, ReleaseDirLocksRemovesEveryHeldFile) {
  // What a stop signal or MPI_Abort calls before an exit that runs no destructors.
  const auto a = temp_dir("a"), b = temp_dir("b");
  auto la = std::make_unique<io::DirLock>(a.string());
  auto lb = std::make_unique<io::DirLock>(b.string());
  io::release_dir_locks();
  EXPECT_FALSE(fs::exists(a / ".runner.lock"));
  EXPECT_FALSE(fs::exists(b / ".runner.lock"));
  la.reset();
  lb.reset();
  io::DirLock again(a.string());  // released: free to take
  EXPECT_TRUE(fs::exists(a / ".runner.lock"));
}
