#include <gtest/gtest.h>

#include "runtime/core/did_you_mean.h"

using namespace runner;

TEST(DidYouMean, Distance) {
  EXPECT_EQ(edit_distance("abc", "abc"), 0u);
  EXPECT_EQ(edit_distance("lerning_rate", "learning_rate"), 1u);
  EXPECT_EQ(edit_distance("learnign_rate", "learning_rate"), 1u);  // transposition
  EXPECT_EQ(edit_distance("", "abc"), 3u);
}

TEST(DidYouMean, SuggestsOnlyPlausibleTypos) {
  EXPECT_EQ(closest_match("cosin", {"linear", "cosine", "constant"}), "cosine");
  EXPECT_EQ(closest_match("epochs", {"num_train_epochs", "max_steps"}), "num_train_epochs");
  EXPECT_EQ(closest_match("zzzzzzzz", {"linear", "cosine"}), "");
  EXPECT_EQ(did_you_mean("trian", {"train", "eval"}), "; did you mean 'train'?");
}
