// runner launch's watch over its ranks (launch_watch.h): the first rank to die is named even
// when the launcher looks only after mpiexec has killed the rest too, and whatever the ages
// of the ranks' records.
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "runtime/cli/launch_watch.h"

using namespace runner;

namespace {

pid_t sleeper() {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::pause();
    ::_exit(0);
  }
  return pid;
}

void write_record(const std::string& folder, int rank, pid_t pid) {
  std::ofstream(folder + "/rank-" + std::to_string(rank) + ".json")
      << "{\"rank\": " << rank << ", \"pid\": " << pid << ", \"step\": " << 3 + rank << ", \"phase\": \"train\", \"entries\": []}\n";
}

}  // namespace

TEST(LaunchWatch, NamesTheFirstRankToDieWhenItLooksLate) {
  // The order comes from pidfds (Linux >= 5.3); older kernels fall back to the records' ages.
  const long probe = ::syscall(SYS_pidfd_open, ::getpid(), 0);
  if (probe < 0 && errno == ENOSYS) GTEST_SKIP() << "this kernel has no pidfd_open (Linux < 5.3)";
  if (probe >= 0) ::close(static_cast<int>(probe));
  const std::string folder = (std::filesystem::temp_directory_path() / ("runner_watch_" + std::to_string(::getpid()))).string();
  const pid_t first = sleeper(), second = sleeper();
  {
    cli::RankWatch watch(folder);
    // Rank 0's record is the older one: a guess from the records' ages would name rank 0.
    write_record(folder, 0, second);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    write_record(folder, 1, first);
    watch.poll();  // reads both records
    ::kill(first, SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    ::kill(second, SIGKILL);
    ::waitpid(first, nullptr, 0);  // reaped, as hydra's proxy reaps its ranks
    ::waitpid(second, nullptr, 0);
    for (int i = 0; i < 10; ++i) watch.poll();  // the launcher's next looks: both are gone by now
    const std::string line = watch.report(9);
    EXPECT_EQ(line.rfind("rank 1 (pid " + std::to_string(first) + ") died without a word", 0), 0u) << line;
    EXPECT_NE(line.find("at step 4, phase train"), std::string::npos) << line;
  }
  EXPECT_FALSE(std::filesystem::exists(folder));
}

TEST(LaunchWatch, ARankThatEndedOrSpokeIsNotADeath) {
  const std::string folder = (std::filesystem::temp_directory_path() / ("runner_watch2_" + std::to_string(::getpid()))).string();
  const pid_t clean = sleeper();
  cli::RankWatch watch(folder);
  write_record(folder, 0, clean);
  watch.poll();
  std::filesystem::remove(folder + "/rank-0.json");  // a rank that ends removes its record first
  ::kill(clean, SIGKILL);
  ::waitpid(clean, nullptr, 0);
  for (int i = 0; i < 10; ++i) watch.poll();
  EXPECT_EQ(watch.report(1), "");
}
