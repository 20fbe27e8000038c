// The flight recorder (runtime/dist/flight_recorder.h) without MPI: the ring keeps the newest
// entries with consecutive sequence numbers, phases nest and an exception keeps the phase it
// left (the error line names it), and the dump is one JSON file written through a rename.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "runtime/dist/flight_recorder.h"

namespace runner::dist {
namespace {

TEST(FlightRecorder, KeepsTheNewestEntriesInOrder) {
  set_step(7);
  Phase phase("train");
  int64_t first = 0, last = 0;
  for (int i = 0; i < kFlightRecordEntries + 10; ++i) {
    last = record_start("all_reduce", "float32", 6, 24, false);
    if (i == 0) first = last;
    if (i % 2 == 0) record_complete(last);
  }
  const std::vector<CollectiveRecord> entries = flight_record();
  ASSERT_EQ(entries.size(), static_cast<size_t>(kFlightRecordEntries));
  EXPECT_EQ(entries.front().seq, first + 10);
  EXPECT_EQ(entries.back().seq, last);
  for (size_t i = 1; i < entries.size(); ++i) EXPECT_EQ(entries[i].seq, entries[i - 1].seq + 1);
  EXPECT_EQ(entries.back().step, 7);
  EXPECT_EQ(entries.back().phase, "train");
  EXPECT_FALSE(entries.back().completed);  // the last one (odd i) was never completed
  EXPECT_EQ(describe(entries.back()), "#" + std::to_string(last) + " all_reduce (float32, 6 values, 24 B, started)");
}

TEST(FlightRecorder, PhasesNestAndAnExceptionKeepsItsPhase) {
  set_phase("train");
  {
    Phase p("on_step_end", /*in_user_code=*/true);
    EXPECT_EQ(activity().phase, "on_step_end");
    EXPECT_TRUE(activity().in_user_code);
  }
  EXPECT_EQ(activity().phase, "train");
  EXPECT_FALSE(activity().in_user_code);
  try {
    Phase p("on_log", true);
    throw std::runtime_error("boom");
  } catch (const std::runtime_error&) {
    EXPECT_EQ(activity().phase, "on_log");  // where it was thrown
  }
  set_phase("train");
  const int64_t seq = record_start("barrier", "none", 0, 0, false);
  record_wait_begin(seq);
  EXPECT_EQ(activity().waiting_seq, seq);
  EXPECT_EQ(activity().waiting_op, "barrier");
  record_wait_end();
  EXPECT_EQ(activity().waiting_seq, 0);
}

TEST(FlightRecorder, DumpsOneJsonFileAtomically) {
  const std::string folder = (std::filesystem::temp_directory_path() / ("flight_record_test_" + std::to_string(::getpid())) / "flight_record").string();
  record_complete(record_start("all_gather", "bfloat16", 8, 16, true));
  const std::string path = dump_flight_record(folder, 3, 4, "a \"quoted\" reason\n", "[{\"rank\": 0}]");
  ASSERT_EQ(path, folder + "/rank-3.json");
  std::ifstream f(path);
  std::stringstream text;
  text << f.rdbuf();
  const nlohmann::json j = nlohmann::json::parse(text.str());
  EXPECT_EQ(j["rank"], 3);
  EXPECT_EQ(j["world_size"], 4);
  EXPECT_EQ(j["reason"], "a \"quoted\" reason\n");
  EXPECT_EQ(j["peers"][0]["rank"], 0);
  EXPECT_EQ(j["entries"].back()["op"], "all_gather");
  EXPECT_EQ(j["entries"].back()["state"], "completed");
  EXPECT_TRUE(j["entries"].back()["async"].get<bool>());
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(folder), {}), 1);  // no temporary file left
  std::filesystem::remove_all(std::filesystem::path(folder).parent_path());
}

}  // namespace
}  // namespace runner::dist
