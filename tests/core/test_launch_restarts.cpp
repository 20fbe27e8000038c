// runner launch --max_restarts / --min_ranks: option parsing, the host list a restart reads
// again, and the rank count it picks (the restarts themselves: tests/integration/test_restarts.py).
#include <cstdio>
#include <fstream>

#include <gtest/gtest.h>

#include "runtime/cli/command_line.h"
#include "runtime/cli/launch_hosts.h"
#include "runtime/core/errors.h"

using namespace runner;

namespace {
cli::CommandLine parse(std::vector<const char*> argv) {
  argv.insert(argv.begin(), "runner");
  return cli::parse_command_line(static_cast<int>(argv.size()), argv.data());
}
}  // namespace

TEST(LaunchRestarts, OptionsAreParsedAndRepeatedInTheResumeLine) {
  auto cl = parse({"launch", "-n", "4", "--max_restarts", "3", "--min_ranks=2", "r.lua", "--seed", "1"});
  EXPECT_EQ(cl.max_restarts, 3);
  EXPECT_EQ(cl.min_ranks, 2);
  EXPECT_EQ(cl.launch_options, (std::vector<std::string>{"-n", "4", "--max_restarts", "3", "--min_ranks=2"}));
  EXPECT_EQ(cl.launch_args, (std::vector<std::string>{"r.lua", "--seed", "1"}));
  EXPECT_EQ(parse({"launch", "-n", "2", "--max_restarts", "0", "r.lua"}).max_restarts, 0);
}

TEST(LaunchRestarts, BadCombinationsAreOneLineErrors) {
  EXPECT_THROW(parse({"launch", "-n", "2", "--min_ranks", "1", "r.lua"}), ArgumentError);  // no restarts to apply it to
  EXPECT_THROW(parse({"launch", "-n", "2", "--max_restarts", "2", "--min_ranks", "3", "r.lua"}), ArgumentError);
  EXPECT_THROW(parse({"launch", "-n", "2", "--max_restarts", "-1", "r.lua"}), ArgumentError);
  try {
    parse({"launch", "-n", "2", "--min_ranks", "1", "r.lua"});
  } catch (const ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("--max_restarts"), std::string::npos) << e.what();
  }
}

TEST(LaunchRestarts, HostsComeFromTheHostfileOrTheList) {
  const std::string path = ::testing::TempDir() + "/hosts";
  std::ofstream(path) << "# the job's nodes\nnode-a:2\n\nnode-b  # a comment\n";
  auto hosts = cli::read_launch_hosts(path, "", 0);
  ASSERT_EQ(hosts.size(), 2u);
  EXPECT_EQ(hosts[0].name, "node-a");
  EXPECT_EQ(hosts[0].slots, 2);
  EXPECT_EQ(hosts[1].name, "node-b");
  EXPECT_EQ(hosts[1].slots, 1);
  hosts = cli::read_launch_hosts("", "a,b:3", 0);
  ASSERT_EQ(hosts.size(), 2u);
  EXPECT_EQ(hosts[1].slots, 3);
  hosts = cli::read_launch_hosts("", "a,b:3", 4);  // -ppn decides
  EXPECT_EQ(hosts[0].slots, 4);
  EXPECT_EQ(hosts[1].slots, 4);
  EXPECT_TRUE(cli::read_launch_hosts("", "", 0).empty());
  EXPECT_THROW(cli::read_launch_hosts("", "a:x", 0), ArgumentError);
  EXPECT_THROW(cli::read_launch_hosts(path + ".missing", "", 0), ArgumentError);
  std::remove(path.c_str());
}

TEST(LaunchRestarts, ARestartNamesOnlyTheLiveHosts) {
  const std::vector<std::string> given{"-launcher", "fork", "-f", "hosts", "-ppn", "1"};
  EXPECT_EQ(cli::with_hosts(given, {{"a", 1}, {"c", 2}}), (std::vector<std::string>{"-launcher", "fork", "-ppn", "1", "-hosts", "a:1,c:2"}));
}

TEST(LaunchRestarts, FewerRanksDivideThePlannedCount) {
  EXPECT_EQ(cli::restart_ranks(4, 4, 1), 4);
  EXPECT_EQ(cli::restart_ranks(4, 9, 1), 4);  // never more than planned
  EXPECT_EQ(cli::restart_ranks(4, 3, 1), 2);  // 3 does not divide 4
  EXPECT_EQ(cli::restart_ranks(4, 3, 3), 0);  // 2 is below --min_ranks
  EXPECT_EQ(cli::restart_ranks(6, 5, 2), 3);
  EXPECT_EQ(cli::restart_ranks(2, 0, 1), 0);
}

TEST(LaunchRestarts, ALiveHostProbeThatFailsLeavesTheHostOut) {
  // `false` as the launcher fails every probe; `true` passes them.
  std::vector<std::string> dropped;
  EXPECT_TRUE(cli::live_hosts({{"a", 1}}, "false", {}, 10, dropped).empty());
  ASSERT_EQ(dropped.size(), 1u);
  EXPECT_EQ(dropped[0], "a (the probe exited 1)");
  dropped.clear();
  EXPECT_EQ(cli::live_hosts({{"a", 1}, {"b", 2}}, "true", {}, 10, dropped).size(), 2u);
  EXPECT_TRUE(dropped.empty());
  // A probe that never answers is killed at the deadline.
  const std::string hang = ::testing::TempDir() + "/hang.sh";
  std::ofstream(hang) << "#!/bin/sh\nexec sleep 60\n";
  ASSERT_EQ(std::system(("chmod +x " + hang).c_str()), 0);
  EXPECT_TRUE(cli::live_hosts({{"a", 1}}, hang, {}, 0.5, dropped).empty());
  ASSERT_EQ(dropped.size(), 1u);
  EXPECT_EQ(dropped[0], "a (no answer in 0.5 s)");
  std::remove(hang.c_str());
}
