#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/core/errors.h"
#include "runtime/core/step_range.h"
#include "runtime/core/training_args.h"

using namespace runner;
using ::testing::HasSubstr;
using ::testing::Not;
using nlohmann::json;

namespace {
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ArgumentError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(TrainingArgs, DefaultsAreHuggingFaceV5) {
  TrainingArguments a;
  EXPECT_EQ(a.output_dir, "trainer_output");
  EXPECT_EQ(a.per_device_train_batch_size, 8);
  EXPECT_DOUBLE_EQ(a.learning_rate, 5e-5);
  EXPECT_DOUBLE_EQ(a.num_train_epochs, 3.0);
  EXPECT_EQ(a.max_steps, -1);
  EXPECT_EQ(a.lr_scheduler_type, "linear");
  EXPECT_DOUBLE_EQ(a.max_grad_norm, 1.0);
  EXPECT_EQ(a.logging_strategy, "steps");
  EXPECT_DOUBLE_EQ(a.logging_steps, 500);
  EXPECT_EQ(a.save_strategy, "steps");
  EXPECT_EQ(a.eval_strategy, "no");
  EXPECT_EQ(a.seed, 42);
  EXPECT_EQ(a.report_to, "none");
  EXPECT_FALSE(a.eval_steps.has_value());
}

TEST(TrainingArgs, SetFromJsonChecksTypes) {
  TrainingArguments a;
  a.set("learning_rate", 0.01);
  EXPECT_DOUBLE_EQ(a.learning_rate, 0.01);
  a.set("per_device_train_batch_size", 4.0);  // Lua numbers are doubles: integral is fine
  EXPECT_EQ(a.per_device_train_batch_size, 4);
  EXPECT_THAT(error_of([&] { a.set("per_device_train_batch_size", 2.5); }), HasSubstr("args.per_device_train_batch_size: expected an integer"));
  EXPECT_THAT(error_of([&] { a.set("learning_rate", "fast"); }), HasSubstr("args.learning_rate: expected a number, got \"fast\""));
  EXPECT_THAT(error_of([&] { a.set("do_predict", 1); }), HasSubstr("expected true or false"));
}

TEST(TrainingArgs, UnknownKeySuggestsClosest) {
  TrainingArguments a;
  EXPECT_THAT(error_of([&] { a.set("lerning_rate", 0.1); }), HasSubstr("args.lerning_rate: unknown argument; did you mean 'learning_rate'?"));
  EXPECT_THAT(error_of([&] { a.set_from_string("num_train_epoch", "2"); }), HasSubstr("did you mean 'num_train_epochs'?"));
}

TEST(TrainingArgs, ChoicesAreCheckedWithSuggestion) {
  TrainingArguments a;
  EXPECT_THAT(error_of([&] { a.set("lr_scheduler_type", "cosin"); }),
              HasSubstr("args.lr_scheduler_type: unknown \"cosin\"; did you mean 'cosine'?"));
}

TEST(TrainingArgs, V4NamesMapOntoV5WithAWarning) {
  TrainingArguments a;
  a.set("evaluation_strategy", "epoch");
  a.set("per_gpu_train_batch_size", 4);
  a.set("per_gpu_eval_batch_size", 16);
  a.set("adafactor", true);
  a.set("include_tokens_per_second", true);
  a.set("fsdp", "full_shard");
  a.set("fsdp_transformer_layer_cls_to_wrap", "GPT2Block");
  a.set("fsdp_config", json{{"backward_prefetch", "backward_post"}});  // after the v4 key: still merged
  a.set("fsdp_min_num_params", 1000);
  const auto warnings = a.finalize();
  EXPECT_EQ(a.eval_strategy, "epoch");
  EXPECT_EQ(a.per_device_train_batch_size, 4);
  EXPECT_EQ(a.per_device_eval_batch_size, 16);
  EXPECT_EQ(a.optim, "adafactor");
  EXPECT_EQ(a.include_num_input_tokens_seen, "all");
  EXPECT_EQ(a.fsdp_config, (json{{"backward_prefetch", "backward_post"}, {"transformer_layer_cls_to_wrap", "GPT2Block"}, {"min_num_params", 1000}}));
  const std::string all = [&] { std::string t; for (const auto& w : warnings) t += w + "\n"; return t; }();
  for (const char* expected : {"evaluation_strategy is a transformers v4 name (deprecated, removed in v5); use eval_strategy",
                               "per_gpu_train_batch_size is a transformers v4 name (deprecated, removed in v5); use per_device_train_batch_size",
                               "adafactor is a transformers v4 name (deprecated, removed in v5); use optim = \"adafactor\"",
                               "fsdp_min_num_params is a transformers v4 name (deprecated, removed in v5); use fsdp_config.min_num_params",
                               "include_tokens_per_second is a transformers v4 name"})
    EXPECT_THAT(all, HasSubstr(expected));
  // On the command line too, parsed as the argument they move to.
  TrainingArguments c;
  c.set_from_string("per_gpu_train_batch_size", "6");
  c.set_from_string("adafactor", "true");
  c.set_from_string("fsdp_transformer_layer_cls_to_wrap", "[\"BertLayer\"]");
  c.finalize();
  EXPECT_EQ(c.per_device_train_batch_size, 6);
  EXPECT_EQ(c.optim, "adafactor");
  EXPECT_EQ(c.fsdp_config, (json{{"transformer_layer_cls_to_wrap", {"BertLayer"}}}));
  // The v5 names warn about nothing.
  TrainingArguments b;
  b.set("eval_strategy", "epoch");
  for (const auto& w : b.finalize()) EXPECT_THAT(w, Not(HasSubstr("v4")));
}

// A recipe table with a v4 name and its v5 name at different values: which one won depended
// on the table's order. The same value twice is fine.
TEST(TrainingArgs, TwoNamesOfOneArgumentMustAgree) {
  TrainingArguments a;
  try {
    a.update(json{{"evaluation_strategy", "steps"}, {"eval_strategy", "epoch"}});
    ADD_FAILURE() << "accepted";
  } catch (const ArgumentError& e) {
    EXPECT_THAT(e.what(), HasSubstr("name the same argument with different values"));
    EXPECT_THAT(e.what(), HasSubstr("give eval_strategy once"));
  }
  TrainingArguments b;
  b.update(json{{"evaluation_strategy", "epoch"}, {"eval_strategy", "epoch"}});
  EXPECT_EQ(b.eval_strategy, "epoch");
}

TEST(TrainingArgs, V4NamesWithoutACounterpartAreRefusedWithAPointer) {
  TrainingArguments a;
  EXPECT_THAT(error_of([&] { a.set("use_mps_device", true); }), HasSubstr("args.use_mps_device: a transformers v4 argument without a v5 counterpart"));
  EXPECT_THAT(error_of([&] { a.set("sharded_ddp", "simple"); }), HasSubstr("use fsdp"));
  TrainingArguments c;
  c.set("fsdp_config", "some/file.json");
  c.set("fsdp_min_num_params", 10);
  EXPECT_THAT(error_of([&] { c.finalize(); }), HasSubstr("args.fsdp_config: give it as a table"));
}

TEST(TrainingArgs, CommandLineTextParsesByType) {
  TrainingArguments a;
  a.set_from_string("learning_rate", "1e-3");
  a.set_from_string("max_steps", "10");
  a.set_from_string("do_predict", "true");
  a.set_from_string("eval_steps", "None");
  a.set_from_string("lr_scheduler_kwargs", "{\"num_cycles\": 2}");
  a.set_from_string("resume_from_checkpoint", "runs/x/checkpoint-5");
  EXPECT_DOUBLE_EQ(a.learning_rate, 1e-3);
  EXPECT_EQ(a.max_steps, 10);
  EXPECT_TRUE(a.do_predict);
  EXPECT_FALSE(a.eval_steps.has_value());
  EXPECT_EQ(a.lr_scheduler_kwargs["num_cycles"], 2);
  EXPECT_EQ(a.resume_from_checkpoint, "runs/x/checkpoint-5");
  EXPECT_THAT(error_of([&] { a.set_from_string("max_steps", "ten"); }), HasSubstr("--max_steps: expected a number"));
}

TEST(TrainingArgs, FinalizeDerivesDefaults) {
  TrainingArguments a;
  a.eval_strategy = "steps";
  a.logging_steps = 50;
  a.load_best_model_at_end = true;
  a.save_steps = 100;
  a.finalize();
  EXPECT_EQ(a.eval_steps, 50.0);
  EXPECT_EQ(a.metric_for_best_model, "loss");
  EXPECT_EQ(a.greater_is_better, false);

  TrainingArguments b;
  b.metric_for_best_model = "accuracy";
  b.warmup_ratio = 0.1;
  auto warnings = b.finalize();
  EXPECT_EQ(b.greater_is_better, true);
  EXPECT_DOUBLE_EQ(b.warmup_steps, 0.1);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("warmup_ratio is deprecated"));
}

TEST(TrainingArgs, FinalizeValidates) {
  auto fails = [](std::function<void(TrainingArguments&)> set) {
    TrainingArguments a;
    set(a);
    return error_of([&] { a.finalize(); });
  };
  EXPECT_THAT(fails([](auto& a) { a.gradient_accumulation_steps = 0; }), HasSubstr("gradient_accumulation_steps: must be >= 1"));
  EXPECT_THAT(fails([](auto& a) { a.logging_steps = 2.5; }), HasSubstr("logging_steps: must be an integer if bigger than 1"));
  EXPECT_THAT(fails([](auto& a) { a.max_grad_norm = -1; }), HasSubstr("max_grad_norm"));
  EXPECT_THAT(fails([](auto& a) { a.fp16 = a.bf16 = true; }), HasSubstr("at most one of fp16 and bf16"));
  EXPECT_THAT(fails([](auto& a) { a.eval_accumulation_steps = 0; }), HasSubstr("eval_accumulation_steps: must be >= 1"));
  EXPECT_THAT(fails([](auto& a) { a.push_to_hub = true; }), HasSubstr("args.push_to_hub: not supported"));
  EXPECT_THAT(fails([](auto& a) {
                a.load_best_model_at_end = true;
                a.eval_strategy = "epoch";
              }),
              HasSubstr("requires the save and eval strategy to match"));
  EXPECT_THAT(fails([](auto& a) {
                a.load_best_model_at_end = true;
                a.eval_strategy = "steps";
                a.eval_steps = 30;
                a.save_steps = 50;
              }),
              HasSubstr("round multiple"));
  EXPECT_THAT(fails([](auto& a) { a.save_strategy = "best"; }), HasSubstr("metric_for_best_model: must be provided"));
  EXPECT_THAT(fails([](auto& a) { a.report_to = "wandb"; }), HasSubstr("args.report_to"));
}

TEST(TrainingArgs, JsonRoundTrip) {
  TrainingArguments a;
  a.learning_rate = 0.25;
  a.eval_steps = 7;
  a.label_names = {"y"};
  const auto j = a.to_json();
  EXPECT_EQ(j["learning_rate"], 0.25);
  EXPECT_TRUE(j["save_total_limit"].is_null());
  TrainingArguments b = TrainingArguments::from_json(j);
  EXPECT_EQ(b.to_json(), j);
  EXPECT_EQ(b.label_field_names(), std::vector<std::string>{"y"});
}

TEST(TrainingArgs, WarmupStepsIntOrRatio) {
  TrainingArguments a;
  a.warmup_steps = 10;
  EXPECT_EQ(a.warmup_steps_for(1000), 10);
  a.warmup_steps = 0.05;
  EXPECT_EQ(a.warmup_steps_for(1000), 50);
  EXPECT_EQ(a.warmup_steps_for(30), 2);  // ceil(1.5)
}

TEST(TrainingArgs, EveryFieldHasHelpAndAValidDefault) {
  for (const auto& f : arg_fields()) {
    EXPECT_GT(std::string(f.help).size(), 5u) << f.name;
    TrainingArguments a;
    EXPECT_NO_THROW(a.set(f.name, f.default_value)) << f.name;
  }
}

TEST(TrainingArgs, ProfileStepsIsARangeOfGlobalSteps) {
  EXPECT_FALSE(parse_step_range("profile_steps", "").has_value());
  const auto one = parse_step_range("profile_steps", "7");
  ASSERT_TRUE(one.has_value());
  EXPECT_EQ(one->first, 7);
  EXPECT_EQ(one->last, 7);
  const auto range = parse_step_range("profile_steps", "5-12");
  ASSERT_TRUE(range.has_value());
  EXPECT_EQ(range->first, 5);
  EXPECT_EQ(range->last, 12);
  EXPECT_TRUE(range->contains(5) && range->contains(12) && !range->contains(4) && !range->contains(13));
  for (const char* bad : {"x", "3-", "-3", " 3", "3x", "1-2-3", "+3", "3 - 4", "99999999999999999999"})
    EXPECT_THAT(error_of([&] { parse_step_range("profile_steps", bad); }), HasSubstr("args.profile_steps: expected \"A-B\"")) << bad;
  EXPECT_THAT(error_of([&] { parse_step_range("profile_steps", "0-2"); }), HasSubstr("args.profile_steps: steps count from 1"));
  EXPECT_THAT(error_of([&] { parse_step_range("profile_steps", "4-3"); }), HasSubstr("args.profile_steps: the first step is after the last"));
  TrainingArguments a;
  a.profile_steps = "7-9";
  a.max_steps = 6;
  EXPECT_THAT(error_of([&] { a.finalize(); }), HasSubstr("args.profile_steps: step 7 is beyond max_steps (6)"));
  a.max_steps = 7;  // a range the run ends inside is fine: what ran is written
  EXPECT_NO_THROW(a.finalize());
  a.max_steps = -1;  // epochs: the step count is known only when training starts
  a.profile_steps = "1000";
  EXPECT_NO_THROW(a.finalize());
}
