// Training on a CUDA device (ctest label `gpu`; every case skips, visibly, without a GPU):
// GPT and MLP on CUDA equal CPU training in fp32, bf16 and fp16 loss curves track fp32, a
// forced fp16 overflow skips the step and the scale recovers, resume is bit-identical on
// the GPU, and the GPU memory metrics are present and plausible.
#include <gtest/gtest.h>

#include "runtime/models/builtin.h"
#include "runtime/train/gpu_info.h"
#include "tests/train/train_fixture.h"

using namespace runner;
using namespace runner::testing;

namespace {

#define REQUIRE_GPU() \
  if (!train::cuda_available()) GTEST_SKIP() << "no CUDA device: this gpu-labelled case runs on a GPU machine (ctest -L gpu)"

models::GPTConfig tiny_gpt() {
  models::GPTConfig c;
  c.vocab_size = 64;
  c.block_size = 32;
  c.n_layer = 2;
  c.n_head = 4;
  c.n_embd = 64;
  return c;
}

data::DatasetPtr token_data(int64_t n, int64_t t, uint64_t seed) {
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  at::Tensor ids = at::randint(0, 64, {n, t}, gen, at::kLong);
  return std::make_shared<data::TensorDataset>(data::Batch{{"input_ids", ids}, {"labels", ids.clone()}});
}

struct Trained {
  std::vector<at::Tensor> weights;  // on the CPU
  std::vector<double> losses;
  nlohmann::json metrics;
};

// Trains `model` on `ds` and returns its final weights, logged losses and train metrics.
Trained train_model(TrainingArguments a, models::ModulePtr model, data::DatasetPtr ds, std::shared_ptr<train::Hooks> hooks = nullptr) {
  a.finalize();
  auto rec = std::make_shared<Recorder>();
  train::Datasets d;
  d.train = std::move(ds);
  train::Trainer trainer(a, model, d, hooks, {rec});
  Trained out;
  out.metrics = trainer.train().metrics;
  for (const auto& [n, p] : model->named_parameters()) out.weights.push_back(p.detach().to(at::kCPU));
  for (const auto& l : rec->logs)
    if (l.contains("loss")) out.losses.push_back(l["loss"]);
  return out;
}

double max_rel(const std::vector<at::Tensor>& a, const std::vector<at::Tensor>& b) {
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i)
    worst = std::max(worst, (a[i] - b[i]).abs().max().item<double>() / std::max(1e-12, b[i].abs().max().item<double>()));
  return worst;
}

TrainingArguments gpt_args(const std::string& name) {
  TrainingArguments a = regression_args(name);
  a.learning_rate = 1e-3;
  a.max_steps = 8;
  a.per_device_train_batch_size = 4;
  a.logging_steps = 1;
  return a;
}

}  // namespace

TEST(GpuTraining, GptAndMlpOnCudaEqualCpuTraining) {
  REQUIRE_GPU();
  TrainingArguments cpu = gpt_args("gpt_cpu"), gpu = gpt_args("gpt_gpu");
  cpu.use_cpu = true;
  at::manual_seed(0);
  auto m_cpu = models::make_gpt(tiny_gpt());
  at::manual_seed(0);
  auto m_gpu = models::make_gpt(tiny_gpt());
  const Trained a = train_model(cpu, m_cpu, token_data(32, 32, 1)), b = train_model(gpu, m_gpu, token_data(32, 32, 1));
  EXPECT_TRUE(m_gpu->parameters().front().is_cuda());
  EXPECT_LT(max_rel(b.weights, a.weights), 1e-4);

  TrainingArguments rc = regression_args("mlp_cpu"), rg = regression_args("mlp_gpu");
  rc.use_cpu = true;
  auto x = std::make_shared<RegressionModel>(), y = std::make_shared<RegressionModel>();
  const Trained c = train_model(rc, x, regression_data(64, 1)), d = train_model(rg, y, regression_data(64, 1));
  EXPECT_LT(max_rel(d.weights, c.weights), 1e-4);
}

TEST(GpuTraining, Bf16AndFp16LossCurvesTrackFp32) {
  REQUIRE_GPU();
  std::vector<double> curves[3];
  const char* names[] = {"fp32", "bf16", "fp16"};
  for (int k = 0; k < 3; ++k) {
    TrainingArguments a = gpt_args(std::string("curve_") + names[k]);
    a.max_steps = 30;
    a.bf16 = k == 1;
    a.fp16 = k == 2;
    at::manual_seed(0);
    curves[k] = train_model(a, models::make_gpt(tiny_gpt()), token_data(64, 32, 3)).losses;
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
      if (e == Event::kStepBegin && s.global_step == 2) train::set_gpu_sync_errors(true);
      if (e == Event::kStepEnd && s.global_step == 5) train::set_gpu_sync_errors(false);
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
    train::set_gpu_sync_errors(false);
    FAIL() << "a training step waited for the GPU: " << e.what();
  }
}
