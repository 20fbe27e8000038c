// The progress bar as a user sees it on a terminal (written to a file here): step/total,
// elapsed<ETA, it/s, the last logged loss, and the evaluation's own bar.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "runtime/log/progress.h"

using namespace runner;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

std::string contents(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string s;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
  return s;
}

}  // namespace

TEST(ProgressBar, ShowsStepsEtaRateLossAndTheEvaluationsOwnBar) {
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  auto cb = log::make_progress_callback(/*terminal=*/true, /*plain_progress_lines=*/true, out);
  TrainingArguments args;
  TrainerState state;
  TrainerControl control;
  state.max_steps = 200;
  cb->on_event(Event::kTrainBegin, args, state, control, nullptr);
  state.global_step = 90;
  cb->on_event(Event::kLog, args, state, control, {{"loss", 1.23456789}, {"learning_rate", 1e-3}, {"epoch", 0.45}});
  cb->on_event(Event::kStepEnd, args, state, control, nullptr);
  std::string s = contents(out);
  EXPECT_THAT(s, HasSubstr(" 45%|#############"));
  EXPECT_THAT(s, HasSubstr("| 90/200 [00:00<"));
  EXPECT_THAT(s, HasSubstr("it/s, loss 1.2346]"));

  for (int b = 1; b <= 4; ++b)
    cb->on_event(Event::kPredictionStep, args, state, control, {{"split", "eval"}, {"batch", b}, {"num_batches", 4}});
  s = contents(out);
  EXPECT_THAT(s, HasSubstr("eval 100%|####################| 4/4 [00:00<00:00"));
  cb->on_event(Event::kEvaluate, args, state, control, {{"eval_loss", 1.0}});
  s = contents(out);
  EXPECT_THAT(s.substr(s.rfind("\r\033[K")), HasSubstr("| 90/200 [")) << "the training bar is drawn again after evaluating";
  cb->on_event(Event::kTrainEnd, args, state, control, nullptr);
  s = contents(out);
  EXPECT_EQ(s.substr(s.size() - 4), "\r\033[K") << "the bar is cleared at the end";
  std::fclose(out);
}

TEST(ProgressBar, OnlyTheWorldMainProcessDraws) {
  // HF: the bar belongs to the world's first process; another node's first process (local
  // zero, not world zero) repeats info lines only (log_on_each_node), and a replica nothing.
  for (const bool local_zero : {false, true}) {
    std::FILE* out = std::tmpfile();
    auto cb = log::make_progress_callback(true, true, out);
    TrainingArguments args;
    TrainerState state;
    TrainerControl control;
    state.is_local_process_zero = local_zero;
    state.is_world_process_zero = false;
    state.max_steps = 10;
    cb->on_event(Event::kTrainBegin, args, state, control, nullptr);
    state.global_step = 5;
    cb->on_event(Event::kStepEnd, args, state, control, nullptr);
    EXPECT_EQ(contents(out), "") << "local_zero " << local_zero;
    std::fclose(out);
  }
}

TEST(ProgressBar, DurationsReadLikeTqdm) {
  EXPECT_EQ(log::format_duration(0), "00:00");
  EXPECT_EQ(log::format_duration(75.4), "01:15");
  EXPECT_EQ(log::format_duration(3723), "1:02:03");
  EXPECT_EQ(log::format_duration(NAN), "?");
}
