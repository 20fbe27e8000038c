// Device choice and mixed precision on the CPU: bf16 autocast in forward with fp32 master
// weights and fp32 evaluation logits; fp16 and tf32 refused without a GPU; HF's device flags.
#include <ATen/autocast_mode.h>
#include <gmock/gmock.h>

#include "tests/train/train_fixture.h"

using namespace runner;
using namespace runner::testing;
using ::testing::HasSubstr;

namespace {

// Records what the forward saw: autocast on the CPU, and the dtype a Linear produced.
class Probe : public train::Hooks {
 public:
  std::optional<train::LossResult> compute_loss(models::Module& model, const train::Batch& inputs, train::LossContext& ctx) override {
    autocast_seen = autocast_seen || at::autocast::is_autocast_enabled(at::kCPU);
    auto out = model.forward_batch(inputs);
    logits_dtype = out.at("logits").scalar_type();
    device = ctx.device;
    return train::LossResult{out.at("loss"), out};
  }
  bool autocast_seen = false;
  at::ScalarType logits_dtype = at::kDouble;
  at::Device device{at::kCUDA};
};

// The dtype of every gradient the optimizer is about to use (HF's on_pre_optimizer_step).
class GradDtypes : public Callback {
 public:
  explicit GradDtypes(std::shared_ptr<models::Module> model) : model_(std::move(model)) {}
  std::string name() const override { return "GradDtypes"; }
  bool observes_optimizer_step() const override { return true; }
  void on_event(Event e, const TrainingArguments&, const TrainerState&, TrainerControl&, const nlohmann::json&) override {
    if (e != Event::kPreOptimizerStep) return;
    for (const auto& p : model_->parameters()) seen.push_back(p.grad().defined() ? p.grad().scalar_type() : at::ScalarType::Undefined);
  }
  std::vector<at::ScalarType> seen;

 private:
  std::shared_ptr<models::Module> model_;
};

}  // namespace

TEST(Precision, Bf16AutocastInForwardWithFp32MasterWeightsAndFp32EvalLogits) {
  TrainingArguments a = regression_args("bf16");
  a.bf16 = true;
  a.use_cpu = true;
  a.finalize();
  auto probe = std::make_shared<Probe>();
  auto model = std::make_shared<RegressionModel>();
  train::Datasets ds;
  ds.train = regression_data(64, 1);
  ds.test = regression_data(16, 2);
  auto grads = std::make_shared<GradDtypes>(model);
  train::Trainer trainer(a, model, ds, probe, {grads});
  trainer.train();
  EXPECT_TRUE(probe->autocast_seen);
  EXPECT_EQ(probe->logits_dtype, at::kBFloat16);  // the Linear ran in bf16
  EXPECT_EQ(probe->device, at::Device(at::kCPU));
  EXPECT_FALSE(at::autocast::is_autocast_enabled(at::kCPU));  // the scope closed
  for (const auto& p : model->parameters()) EXPECT_EQ(p.scalar_type(), at::kFloat);  // master weights
  ASSERT_FALSE(grads->seen.empty());
  for (at::ScalarType t : grads->seen) EXPECT_EQ(t, at::kFloat);  // fp32 gradients, every one defined
  train::PredictionOutput pred = trainer.predict();
  ASSERT_TRUE(pred.predictions.defined());
  EXPECT_EQ(pred.predictions.scalar_type(), at::kFloat);
}

TEST(Precision, Bf16LossCurveTracksFp32) {
  TrainingArguments a = regression_args("fp32_curve");
  a.logging_steps = 4;
  TrainingArguments b = a;
  b.output_dir = temp_output("bf16_curve");
  b.bf16 = true;
  runner::testing::Run fp32 = train_regression(a, 64, 0), bf16 = train_regression(b, 64, 0);
  ASSERT_EQ(fp32.recorder->logs.size(), bf16.recorder->logs.size());
  for (size_t i = 0; i + 1 < fp32.recorder->logs.size(); ++i) {
    const double x = fp32.recorder->logs[i]["loss"], y = bf16.recorder->logs[i]["loss"];
    EXPECT_NEAR(y, x, 0.05 * x + 0.02) << "log " << i;
  }
  const double first = bf16.recorder->logs.front()["loss"], last = bf16.recorder->logs[bf16.recorder->logs.size() - 2]["loss"];
  EXPECT_LT(last, 0.5 * first);  // it learned y = 2x + 3
}

TEST(Precision, Fp16AndTf32NeedAGpu) {
  if (device::cuda_available()) GTEST_SKIP() << "this machine has a GPU: the refusals are for CPU-only runs";
  TrainingArguments a = regression_args("fp16");
  a.fp16 = true;
  a.finalize();
  try {
    device::resolve_device(a, 0);
    FAIL() << "fp16 on the CPU was accepted";
  } catch (const ArgumentError& e) {
    EXPECT_THAT(e.message(), HasSubstr("args.fp16"));
    EXPECT_THAT(e.message(), HasSubstr("bf16"));
  }
  TrainingArguments t = regression_args("tf32");
  t.tf32 = true;
  EXPECT_THROW(device::resolve_device(t, 0), ArgumentError);
  t.tf32 = false;  // HF: false only switches TF32 off, fine anywhere
  EXPECT_NO_THROW(device::resolve_device(t, 0));
  TrainingArguments e = regression_args("fp16_eval");
  e.fp16_full_eval = true;
  EXPECT_THROW(device::resolve_device(e, 0), ArgumentError);
}

// HF refuses fp16 over float16 trainable weights (torch's GradScaler will not unscale
// float16 gradients): one line naming the parameter, before the device is even chosen. A
// frozen float16 base (LoRA's) is fine.
TEST(Precision, Fp16RefusesFloat16TrainableWeights) {
  TrainingArguments a = regression_args("fp16_weights");
  a.fp16 = true;
  a.finalize();
  train::Datasets ds;
  ds.train = regression_data(16, 1);
  auto model = std::make_shared<RegressionModel>();
  model->to(at::kHalf);
  try {
    train::Trainer trainer(a, model, ds, nullptr, {});
    FAIL() << "float16 trainable weights under fp16 were accepted";
  } catch (const ArgumentError& e) {
    EXPECT_THAT(e.message(), HasSubstr("args.fp16"));
    EXPECT_THAT(e.message(), HasSubstr("float16"));
    EXPECT_THAT(e.message(), HasSubstr("'" + model->named_parameters().front().first + "'"));
  }
  for (const auto& p : model->parameters()) p.requires_grad_(false);
  try {
    train::Trainer trainer(a, model, ds, nullptr, {});
    if (!device::cuda_available()) FAIL() << "fp16 on the CPU was accepted";
  } catch (const ArgumentError& e) {
    EXPECT_THAT(e.message(), ::testing::Not(HasSubstr("float16"))) << "frozen float16 weights are not refused";
  }
}

TEST(Precision, DeviceFollowsUseCpuAndTheDeprecatedNoCuda) {
  TrainingArguments a;
  a.use_cpu = true;
  EXPECT_EQ(device::resolve_device(a, 0).device, at::Device(at::kCPU));
  EXPECT_FALSE(device::resolve_device(a, 0).pin_memory);  // pinning is for copies to a GPU
  TrainingArguments v4;
  v4.set("no_cuda", true);
  const auto warnings = v4.finalize();
  EXPECT_TRUE(v4.use_cpu);
  EXPECT_THAT(warnings, ::testing::Contains(HasSubstr("no_cuda is deprecated")));
  TrainingArguments def;
  EXPECT_EQ(device::resolve_device(def, 0).device.is_cuda(), device::cuda_available());
}

TEST(Precision, Bf16FullEvalCastsTheModelOnlyOutsideTraining) {
  TrainingArguments a = regression_args("bf16_full_eval");
  a.bf16_full_eval = true;
  a.eval_strategy = "epoch";
  runner::testing::Run r = train_regression(a, 32, 16);
  for (const auto& p : r.model->parameters()) EXPECT_EQ(p.scalar_type(), at::kFloat);  // evaluations inside train()
  const nlohmann::json m = r.trainer->evaluate();
  EXPECT_TRUE(m.contains("eval_loss"));
  for (const auto& p : r.model->parameters()) EXPECT_EQ(p.scalar_type(), at::kBFloat16);  // HF casts the model for good
}
