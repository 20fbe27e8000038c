// Acceptance #3.2: resuming from a checkpoint (mid-epoch, at an epoch boundary, with
// gradient accumulation, a partial last window, dropout and an LR schedule) finishes with
// bit-identical weights and an identical trainer_state.json (minus runtime/throughput
// keys) to the uninterrupted run.
#include <gmock/gmock.h>

#include "runtime/io/safetensors.h"
#include "tests/train/train_fixture.h"

using namespace runner;
using namespace runner::testing;

namespace {

// 44 examples, batch 4 → 11 micro-batches per epoch; accumulation 2 → windows 2,2,2,2,2,1
// → 6 optimizer steps per epoch, 18 in 3 epochs. Checkpoints every 4 steps land mid-epoch
// (4, 8, 16) and on an epoch boundary (12); logging every 3 is not aligned with saving.
TrainingArguments resume_args(const std::string& dir) {
  TrainingArguments a;
  a.output_dir = dir;
  a.per_device_train_batch_size = 4;
  a.gradient_accumulation_steps = 2;
  a.num_train_epochs = 3;
  a.learning_rate = 0.05;
  a.lr_scheduler_type = "cosine";
  a.warmup_steps = 3;
  a.weight_decay = 0.01;
  a.logging_steps = 3;
  a.save_strategy = "steps";
  a.save_steps = 4;
  a.eval_strategy = "steps";
  a.eval_steps = 6;
  a.disable_tqdm = true;
  return a;
}

std::map<std::string, at::Tensor> weights(models::Module& m) {
  std::map<std::string, at::Tensor> out;
  for (auto& [n, t] : m.state_dict()) out[n] = t.detach().clone();
  return out;
}

nlohmann::json comparable_state(nlohmann::json s) {
  for (auto& entry : s["log_history"])
    for (const char* k : {"train_runtime", "train_samples_per_second", "train_steps_per_second", "train_data_wait_seconds", "eval_runtime",
                          "eval_samples_per_second", "eval_steps_per_second"})
      entry.erase(k);
  return s;
}

struct Full {
  std::string dir;
  std::map<std::string, at::Tensor> final_weights;
  nlohmann::json state;
};

const Full& full_run() {
  static Full f = [] {
    Full out;
    out.dir = temp_output("resume_full");
    auto run = train_regression(resume_args(out.dir), 44, 12, /*dropout=*/0.2);
    out.final_weights = weights(*run.model);
    out.state = comparable_state(run.trainer->state().to_json());
    return out;
  }();
  return f;
}

void resume_and_compare(int64_t step, const std::string& name) {
  const Full& full = full_run();
  ASSERT_EQ(checkpoint_steps(full.dir), (std::vector<int64_t>{4, 8, 12, 16, 18}));
  auto a = resume_args(temp_output(name));
  a.resume_from_checkpoint = full.dir + "/checkpoint-" + std::to_string(step);
  auto run = train_regression(a, 44, 12, 0.2);  // a fresh model: the checkpoint must restore it
  for (const auto& [n, t] : weights(*run.model)) EXPECT_TRUE(t.equal(full.final_weights.at(n))) << n << " after resuming at " << step;
  EXPECT_EQ(comparable_state(run.trainer->state().to_json()), full.state) << "trainer_state after resuming at " << step;
  // The resumed run only did the remaining steps.
  EXPECT_EQ(run.recorder->count("on_step_end"), 18 - step);
}

}  // namespace

TEST(Resume, MidEpoch) { resume_and_compare(4, "resume_4"); }
TEST(Resume, MidEpochAfterAnEvaluation) { resume_and_compare(8, "resume_8"); }
TEST(Resume, AtAnEpochBoundary) { resume_and_compare(12, "resume_12"); }
TEST(Resume, LastEpoch) { resume_and_compare(16, "resume_16"); }

TEST(Resume, DroppingTheRngOrOptimizerStateBreaksEquality) {
  // Guard for the tests above: resuming from the same checkpoint without its RNG state, or
  // without its optimizer state, ends elsewhere, so their equality comes from restoring both.
  const Full& full = full_run();
  for (const auto& dropped : std::vector<std::vector<std::string>>{{"rng_state.json"}, {"optimizer.safetensors", "optimizer.json"}}) {
    const std::string dir = temp_output("resume_without_" + dropped.front());
    fs::create_directories(dir);
    fs::copy(full.dir + "/checkpoint-8", dir + "/checkpoint-8", fs::copy_options::recursive);
    fs::remove(dir + "/checkpoint-8/manifest.json");  // else the checkpoint counts as damaged
    for (const auto& f : dropped) fs::remove(dir + "/checkpoint-8/" + f);
    auto a = resume_args(dir);
    a.resume_from_checkpoint = dir + "/checkpoint-8";
    auto run = train_regression(a, 44, 12, 0.2);
    EXPECT_EQ(run.recorder->count("on_step_end"), 10);  // it did resume at step 8
    bool differs = false;
    for (const auto& [n, t] : weights(*run.model)) differs = differs || !t.equal(full.final_weights.at(n));
    EXPECT_TRUE(differs) << "resuming without " << dropped.front() << " still matched";
  }
}

TEST(Resume, LatestCheckpointWithTrue) {
  const Full& full = full_run();
  const std::string dir = temp_output("resume_true");
  fs::create_directories(dir);
  fs::copy(full.dir + "/checkpoint-12", dir + "/checkpoint-12", fs::copy_options::recursive);
  fs::copy(full.dir + "/checkpoint-8", dir + "/checkpoint-8", fs::copy_options::recursive);
  auto a = resume_args(dir);
  a.resume_from_checkpoint = true;
  auto run = train_regression(a, 44, 12, 0.2);
  EXPECT_EQ(run.recorder->count("on_step_end"), 6);  // resumed from 12, the latest
  for (const auto& [n, t] : weights(*run.model)) EXPECT_TRUE(t.equal(full.final_weights.at(n))) << n;
}

TEST(Resume, ClearErrorsForBadPaths) {
  auto a = resume_args(temp_output("resume_empty"));
  a.resume_from_checkpoint = true;
  try {
    train_regression(a, 44, 12);
    FAIL();
  } catch (const CheckpointError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("no valid checkpoint found in output directory"));
  }
  a.resume_from_checkpoint = "/no/such/checkpoint-3";
  try {
    train_regression(a, 44, 12);
    FAIL();
  } catch (const CheckpointError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("can't find a valid checkpoint at /no/such/checkpoint-3"));
  }
}

TEST(Resume, IgnoreDataSkipRestartsTheEpoch) {
  const Full& full = full_run();
  auto a = resume_args(temp_output("resume_ignore"));
  a.resume_from_checkpoint = full.dir + "/checkpoint-4";
  a.ignore_data_skip = true;
  auto run = train_regression(a, 44, 12, 0.2);
  // Steps 5.. restart epoch 0 from its first batch, so the run reaches max_steps before
  // the data ends and the weights differ from the uninterrupted run.
  EXPECT_EQ(run.trainer->state().global_step, 18);
  bool differs = false;
  for (const auto& [n, t] : weights(*run.model)) differs = differs || !t.equal(full.final_weights.at(n));
  EXPECT_TRUE(differs);
}

TEST(Resume, SaveOnlyModelCheckpointsHoldOnlyTheModel) {
  auto a = resume_args(temp_output("save_only_model"));
  a.save_only_model = true;
  auto run = train_regression(a, 44, 12);
  EXPECT_EQ(files_in(a.output_dir + "/checkpoint-4"),
            (std::vector<std::string>{"manifest.json", "model.safetensors", "trainer_state.json", "training_args.json"}));
  const Full& full = full_run();
  EXPECT_EQ(files_in(full.dir + "/checkpoint-4"),
            (std::vector<std::string>{"loop_state.json", "manifest.json", "model.safetensors", "optimizer.json", "optimizer.safetensors",
                                      "rng_state.json", "scheduler.json", "trainer_state.json", "training_args.json"}));
}
