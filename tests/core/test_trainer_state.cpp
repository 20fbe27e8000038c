#include <gtest/gtest.h>

#include "runtime/core/trainer_state.h"

using namespace runner;

TEST(TrainerState, HuggingFaceKeySet) {
  TrainerState s;
  const auto j = s.to_json();
  for (const char* key : {"best_global_step", "best_metric", "best_model_checkpoint", "epoch", "eval_steps", "global_step",
                          "is_hyper_param_search", "is_local_process_zero", "is_world_process_zero", "log_history",
                          "logging_steps", "max_steps", "num_input_tokens_seen", "num_train_epochs", "save_steps",
                          "stateful_callbacks", "total_flos", "train_batch_size", "trial_name", "trial_params"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j.size(), 20u);
}

TEST(TrainerState, JsonRoundTrip) {
  TrainerState s;
  s.global_step = 12;
  s.epoch = 1.5;
  s.best_metric = 0.25;
  s.best_model_checkpoint = "out/checkpoint-10";
  s.log_history.push_back({{"loss", 1.0}, {"step", 5}});
  EXPECT_EQ(TrainerState::from_json(s.to_json()).to_json(), s.to_json());
}

TEST(TrainerState, RatioStepsResolveAgainstMaxSteps) {
  EXPECT_EQ(TrainerState::resolve_steps(0.1, 95), 10);  // ceil(9.5)
  EXPECT_EQ(TrainerState::resolve_steps(20, 95), 20);
}
