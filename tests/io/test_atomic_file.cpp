#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "runtime/core/errors.h"
#include "runtime/io/atomic_file.h"
#include "runtime/io/checkpoint.h"

using namespace runner;
namespace fs = std::filesystem;

namespace {
fs::path temp_dir(const std::string& name) {
  auto dir = fs::temp_directory_path() / ("runner_atomic_" + std::to_string(::getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}
std::string read(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
}  // namespace

TEST(AtomicFile, JsonIsSortedIndentedWithNewline) {
  auto dir = temp_dir("json");
  io::write_json_atomic((dir / "a.json").string(), {{"b", 1}, {"a", {1, 2}}});
  EXPECT_EQ(read(dir / "a.json"), "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": 1\n}\n");
  for (const auto& e : fs::directory_iterator(dir)) EXPECT_EQ(e.path().filename(), "a.json");  // no temp files left
}

TEST(AtomicFile, StagedDirIsInvisibleUntilCommit) {
  auto dir = temp_dir("staged");
  const std::string final_path = (dir / "checkpoint-5").string();
  {
    io::StagedDir staged(final_path);
    std::ofstream(staged.path() + "/x.txt") << "new";
    EXPECT_FALSE(fs::exists(final_path));
    // not committed: a crash here leaves no checkpoint-5
  }
  EXPECT_FALSE(fs::exists(final_path));
  EXPECT_TRUE(fs::is_empty(dir));
  io::StagedDir staged(final_path);
  std::ofstream(staged.path() + "/x.txt") << "new";
  staged.commit();
  EXPECT_EQ(read(fs::path(final_path) / "x.txt"), "new");
}

TEST(AtomicFile, StagedDirTakesATrailingSlash) {
  auto dir = temp_dir("slash");
  io::StagedDir staged((dir / "merged").string() + "/");
  std::ofstream(staged.path() + "/x.txt") << "new";
  staged.commit();
  EXPECT_EQ(read(dir / "merged" / "x.txt"), "new");
}

TEST(AtomicFile, CommitReplacesAnExistingFolder) {
  auto dir = temp_dir("replace");
  const std::string final_path = (dir / "out").string();
  fs::create_directories(final_path);
  std::ofstream(final_path + "/old.txt") << "old";
  io::StagedDir staged(final_path);
  std::ofstream(staged.path() + "/new.txt") << "new";
  staged.commit();
  EXPECT_FALSE(fs::exists(final_path + "/old.txt"));
  EXPECT_TRUE(fs::exists(final_path + "/new.txt"));
}

TEST(Checkpoint, ListsCheckpointsByStepNotByName) {
  auto dir = temp_dir("list");
  for (const char* n : {"checkpoint-10", "checkpoint-9", "checkpoint-100", "checkpoint-x", "other"}) fs::create_directories(dir / n);
  auto all = io::list_checkpoints(dir.string());
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].first, 9);
  EXPECT_EQ(all[2].first, 100);
  EXPECT_EQ(*io::last_checkpoint(dir.string()), (dir / "checkpoint-100").string());
}
