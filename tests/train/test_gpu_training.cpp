// Training on a CUDA device (ctest label `gpu`; every case skips, visibly, without a GPU):
// GPT and MLP on CUDA equal CPU training in fp32, bf16 and fp16 loss curves track fp32, a
// forced fp16 overflow skips the step and the scale recovers, resume is bit-identical on
// the GPU, and the GPU memory metrics are present and plausible.
#include <gtest/gtest.h>

#include <set>

#include "tests/train/gpu_fixture.h"

using namespace runner;
using namespace runner::testing;

TEST(GpuTraining, GptAndMlpOnCudaEqualCpuTraining) {
  REQUIRE_GPU();
  TrainingArguments cpu = gpt_args("gpt_cpu"), gpu = gpt_args("gpt_gpu");
  cpu.use_cpu = true;
  // Without biases: the attention's key bias has a true gradient of zero (softmax ignores a
  // constant added to every key), so its value is rounding noise that AdamW scales up, and
  // no relative tolerance can compare it between devices.
  models::GPTConfig config = tiny_gpt();
  config.bias = false;
  at::manual_seed(0);
  auto m_cpu = models::make_gpt(config);
  at::manual_seed(0);
  auto m_gpu = models::make_gpt(config);
  const Trained a = train_model(cpu, m_cpu, token_data(32, 32, 1)), b = train_model(gpu, m_gpu, token_data(32, 32, 1));
  EXPECT_TRUE(m_gpu->parameters().front().is_cuda());
  // CUDA kernels round otherwise than the CPU loops; AdamW turns a rounding difference in a
  // near-zero gradient into up to one learning-rate step (1e-3 of weights ~1). H200: 1.06e-4.
  EXPECT_LT(max_rel(b.weights, a.weights), 3e-4);

  TrainingArguments rc = regression_args("mlp_cpu"), rg = regression_args("mlp_gpu");
  rc.use_cpu = true;
  auto x = std::make_shared<RegressionModel>(), y = std::make_shared<RegressionModel>();
  const Trained c = train_model(rc, x, regression_data(64, 1)), d = train_model(rg, y, regression_data(64, 1));
  EXPECT_LT(max_rel(d.weights, c.weights), 1e-4);
}

namespace {
// Records the logits' dtype inside the training forward: autocast silently off would leave
// them fp32 and the curves would still "track".
class DtypeProbe : public train::Hooks {
 public:
  std::optional<train::LossResult> compute_loss(models::Module& model, const train::Batch& inputs, train::LossContext&) override {
    auto out = model.forward_batch(inputs);
    seen.insert(out.at("logits").scalar_type());
    return train::LossResult{out.at("loss"), out};
  }
  std::set<at::ScalarType> seen;
};
}  // namespace

TEST(GpuTraining, Bf16AndFp16LossCurvesTrackFp32) {
  REQUIRE_GPU();
  std::vector<double> curves[3];
  const char* names[] = {"fp32", "bf16", "fp16"};
  const at::ScalarType dtypes[] = {at::kFloat, at::kBFloat16, at::kHalf};
  for (int k = 0; k < 3; ++k) {
    TrainingArguments a = gpt_args(std::string("curve_") + names[k]);
    a.max_steps = 30;
    a.bf16 = k == 1;
    a.fp16 = k == 2;
    at::manual_seed(0);
    auto probe = std::make_shared<DtypeProbe>();
    curves[k] = train_model(a, models::make_gpt(tiny_gpt()), token_data(64, 32, 3), probe).losses;
    EXPECT_EQ(probe->seen, std::set<at::ScalarType>{dtypes[k]}) << names[k] << ": the forward did not run in " << names[k];
  }
  ASSERT_EQ(curves[0].size(), 30u);
  for (int k = 1; k < 3; ++k)
    for (size_t i = 0; i < curves[0].size(); ++i) EXPECT_NEAR(curves[k][i], curves[0][i], 0.05 * curves[0][i]) << names[k] << " step " << i;
  EXPECT_LT(curves[2].back(), curves[2].front());
}

namespace {
// compute_loss that makes the loss (and so every gradient) infinite on one optimizer step.
class OverflowAt : public train::Hooks {
 public:
  explicit OverflowAt(int64_t call) : call_(call) {}
  std::optional<train::LossResult> compute_loss(models::Module& model, const train::Batch& inputs, train::LossContext&) override {
    auto out = model.forward_batch(inputs);
    at::Tensor loss = out.at("loss");
    if (++calls_ == call_) loss = loss * std::numeric_limits<double>::infinity();
    return train::LossResult{loss, out};
  }
  int64_t call_, calls_ = 0;
};
}  // namespace

TEST(GpuTraining, ForcedFp16OverflowSkipsTheStepBacksOffAndRecovers) {
  REQUIRE_GPU();
  TrainingArguments a = gpt_args("overflow");
  a.fp16 = true;
  a.max_steps = 6;
  a.finalize();
  auto model = models::make_gpt(tiny_gpt());
  train::Datasets d;
  d.train = token_data(32, 32, 5);
  // Weights after each step: the overflow step (the 3rd) must leave them unchanged.
  struct Snap : Callback {
    std::string name() const override { return "Snap"; }
    void on_event(Event e, const TrainingArguments&, const TrainerState&, TrainerControl&, const nlohmann::json&) override {
      if (e == Event::kStepEnd) w.push_back(model->parameters().front().detach().to(at::kCPU).clone());
    }
    models::ModulePtr model;
    std::vector<at::Tensor> w;
  };
  auto snap = std::make_shared<Snap>();
  snap->model = model;
  train::Trainer trainer(a, model, d, std::make_shared<OverflowAt>(3), {snap});
  trainer.train();
  ASSERT_EQ(snap->w.size(), 6u);
  EXPECT_TRUE(snap->w[2].equal(snap->w[1]));    // skipped
  EXPECT_FALSE(snap->w[3].equal(snap->w[2]));   // training goes on
  ASSERT_NE(trainer.loss_scaler(), nullptr);
  EXPECT_EQ(trainer.loss_scaler()->skipped_steps(), 1);
  EXPECT_EQ(trainer.loss_scaler()->scale(), 32768.0);  // 2^16 backed off once
  for (const auto& w : snap->w) EXPECT_TRUE(w.isfinite().all().item<bool>());
}

TEST(GpuTraining, ResumeOnCudaIsBitIdentical) {
  REQUIRE_GPU();
  auto run = [](const std::string& name, bool resume) {
    TrainingArguments a = gpt_args(name);
    a.save_strategy = "steps";
    a.save_steps = 3;
    a.max_steps = 6;
    a.fp16 = true;  // the scaler's state must come back too
    models::GPTConfig c = tiny_gpt();
    c.dropout = 0.1;  // the CUDA generator's state must come back
    // temp_output() would empty the folder: the path of the first run's checkpoint, as it is.
    if (resume) a.resume_from_checkpoint = (fs::temp_directory_path() / ("runner_train_" + std::to_string(::getpid())) / "resume_full" / "checkpoint-3").string();
    at::manual_seed(0);
    return train_model(a, models::make_gpt(c), token_data(32, 32, 7));
  };
  const Trained full = run("resume_full", false);
  const Trained resumed = run("resume_again", true);
  for (size_t i = 0; i < full.weights.size(); ++i) EXPECT_TRUE(full.weights[i].equal(resumed.weights[i])) << i;
}

TEST(GpuTraining, MemoryMetricsArePresentAndPlausible) {
  REQUIRE_GPU();
  TrainingArguments a = gpt_args("memory");
  a.skip_memory_metrics = false;  // HF's default skips them
  at::manual_seed(0);
  auto model = models::make_gpt(tiny_gpt());
  const int64_t param_bytes = model->num_parameters() * 4;
  const Trained t = train_model(a, model, token_data(32, 32, 9));
  ASSERT_TRUE(t.metrics.contains("train_mem_gpu_alloc_delta")) << t.metrics.dump();
  ASSERT_TRUE(t.metrics.contains("train_mem_gpu_peaked_delta"));
  ASSERT_TRUE(t.metrics.contains("init_mem_gpu_alloc_delta"));
  // The model moved to the GPU during init; training added gradients and AdamW's state.
  EXPECT_GE(t.metrics["init_mem_gpu_alloc_delta"].get<int64_t>(), param_bytes);
  EXPECT_GE(t.metrics["train_mem_gpu_alloc_delta"].get<int64_t>(), 2 * param_bytes);
  EXPECT_GT(t.metrics["train_mem_gpu_peaked_delta"].get<int64_t>(), 0);  // activations came and went
}

TEST(GpuTraining, NoStepWaitsForTheGpuBetweenLoggingSteps) {
  REQUIRE_GPU();
  // Steps 3 to 5 run with CUDA's sync debug mode set to "error": any .item(), blocking copy
  // or synchronize in the training step throws. Nothing is logged or saved in between.
  struct SyncGuard : Callback {
    std::string name() const override { return "SyncGuard"; }
    void on_event(Event e, const TrainingArguments&, const TrainerState& s, TrainerControl&, const nlohmann::json&) override {
      if (e == Event::kStepBegin && s.global_step == 2) device::set_gpu_sync_errors(true);
      if (e == Event::kStepEnd && s.global_step == 5) device::set_gpu_sync_errors(false);
    }
  };
  TrainingArguments a = gpt_args("no_sync");
  a.logging_steps = 100;
  a.gradient_accumulation_steps = 2;
  a.finalize();
  train::Datasets d;
  d.train = token_data(64, 32, 11);
  train::Trainer trainer(a, models::make_gpt(tiny_gpt()), d, nullptr, {std::make_shared<SyncGuard>()});
  try {
    trainer.train();
  } catch (const std::exception& e) {
    device::set_gpu_sync_errors(false);
    FAIL() << "a training step waited for the GPU: " << e.what();
  }
}
