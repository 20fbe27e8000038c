// fp16 dynamic loss scaling: PyTorch GradScaler semantics (checked against the real
// GradScaler), DeepSpeed's fp16 block (hysteresis, minimum, static scale), checkpoint state.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>

#include "runtime/core/errors.h"
#include "runtime/config/deepspeed_config.h"
#include "runtime/train/loss_scaler.h"

using runner::CheckpointError;
using runner::train::LossScaler;
using runner::train::LossScalerConfig;
using json = nlohmann::json;

namespace {

std::string run_python(const std::string& args) {
  const std::string cmd = std::string(RUNNER_PYTHON) + " -B " + RUNNER_SOURCE_DIR + "/tests/train/grad_scaler_reference.py " + args;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  std::string out;
  char buf[4096];
  while (pipe && fgets(buf, sizeof buf, pipe.get())) out += buf;
  return out;
}

}  // namespace

TEST(LossScaler, PyTorchDefaults) {
  LossScaler s;
  EXPECT_EQ(s.scale(), 65536.0);
  EXPECT_FALSE(s.update(false));  // overflow: skip the step, halve the scale
  EXPECT_EQ(s.scale(), 32768.0);
  for (int i = 0; i < 1999; ++i) ASSERT_TRUE(s.update(true));
  EXPECT_EQ(s.scale(), 32768.0);
  EXPECT_TRUE(s.update(true));  // the 2000th good step in a row doubles it
  EXPECT_EQ(s.scale(), 65536.0);
  EXPECT_EQ(s.skipped_steps(), 1);
}

TEST(LossScaler, EqualsPyTorchGradScalerStepByStep) {
  const std::string flags = "...o..oo...o....o.o......";
  const std::string text = run_python("'" + flags + "' 3");
  const json expected = json::parse(text, nullptr, false);
  if (expected.is_discarded()) GTEST_SKIP() << RUNNER_PYTHON << " could not run the GradScaler reference (run scripts/setup): " << text;
  LossScalerConfig c;
  c.growth_interval = 3;
  LossScaler s(c);
  ASSERT_EQ(expected.size(), flags.size());
  for (size_t i = 0; i < flags.size(); ++i) {
    const bool stepped = s.update(flags[i] != 'o');
    EXPECT_EQ(s.scale(), expected[i][0].get<double>()) << "step " << i;
    EXPECT_EQ(stepped, expected[i][1].get<bool>()) << "step " << i;
  }
}

TEST(LossScaler, DeepSpeedHysteresisAndMinimum) {
  LossScalerConfig c = runner::config::DeepSpeedSettings::deepspeed_loss_scaler_defaults();
  c.init_scale = 4.0;
  LossScaler s(c);
  EXPECT_FALSE(s.update(false));  // first overflow uses up the hysteresis (2 → 1)
  EXPECT_EQ(s.scale(), 4.0);
  EXPECT_FALSE(s.update(false));
  EXPECT_EQ(s.scale(), 2.0);
  EXPECT_FALSE(s.update(false));
  EXPECT_EQ(s.scale(), 1.0);
  EXPECT_FALSE(s.update(false));
  EXPECT_EQ(s.scale(), 1.0);  // min_loss_scale
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(s.update(true));
  EXPECT_EQ(s.scale(), 2.0);  // loss_scale_window good steps
  EXPECT_FALSE(s.update(false));  // the hysteresis was restored by the growth
  EXPECT_EQ(s.scale(), 2.0);
}

TEST(LossScaler, StaticScaleNeverChangesButStillSkipsOverflow) {
  LossScalerConfig c;
  c.dynamic = false;
  c.init_scale = 128;
  LossScaler s(c);
  EXPECT_FALSE(s.update(false));
  for (int i = 0; i < 5000; ++i) s.update(true);
  EXPECT_EQ(s.scale(), 128.0);
}

TEST(LossScaler, StateRoundTripsAndRejectsBadValues) {
  LossScaler a;
  a.update(false);
  for (int i = 0; i < 7; ++i) a.update(true);
  LossScaler b;
  b.load_state_dict(json::parse(a.state_dict().dump()));
  for (int i = 0; i < 1993; ++i) b.update(true), a.update(true);
  EXPECT_EQ(a.scale(), 65536.0);
  EXPECT_EQ(b.scale(), a.scale());
  EXPECT_EQ(b.skipped_steps(), 1);
  EXPECT_THROW(b.load_state_dict(json{{"scale", "big"}, {"growth_tracker", 0}}), CheckpointError);
  EXPECT_THROW(b.load_state_dict(json{{"scale", -1.0}, {"growth_tracker", 0}}), CheckpointError);
}

TEST(LossScaler, DeepSpeedFp16BlockDrivesIt) {
  runner::TrainingArguments args;
  args.fp16 = true;
  args.deepspeed = json{{"fp16", {{"enabled", "auto"}, {"loss_scale", 0}, {"loss_scale_window", 500}, {"initial_scale_power", 12},
                                  {"hysteresis", 3}, {"min_loss_scale", 2}}}};
  const LossScalerConfig c = runner::config::resolve_loss_scaler(args, 1);
  EXPECT_EQ(c.init_scale, 4096.0);
  EXPECT_EQ(c.growth_interval, 500);
  EXPECT_EQ(c.hysteresis, 3);
  EXPECT_EQ(c.min_scale, 2.0);
  EXPECT_TRUE(c.dynamic);
  args.deepspeed["fp16"]["loss_scale"] = 1024;
  EXPECT_FALSE(runner::config::resolve_loss_scaler(args, 1).dynamic);
  EXPECT_EQ(runner::config::resolve_loss_scaler(args, 1).init_scale, 1024.0);
  // Without a DeepSpeed config: PyTorch GradScaler's defaults (what Accelerate uses).
  runner::TrainingArguments plain;
  EXPECT_EQ(runner::config::resolve_loss_scaler(plain, 1).growth_interval, 2000);
  // fp16.enabled must agree with args.fp16 (HF fill_match).
  args.fp16 = false;
  args.deepspeed["fp16"]["enabled"] = true;
  EXPECT_THROW(runner::config::resolve_loss_scaler(args, 1), runner::ArgumentError);
}
