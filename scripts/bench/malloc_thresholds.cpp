// Does raising glibc's mmap/trim thresholds speed up a training step? Trains an MLP
// (784-1024-1024-10, batch 256, AdamW) through the C++ Trainer and prints ms/step and
// minor page faults/step. Run once per setting, in separate processes (mallopt must come
// before the first allocation): bench_malloc default | bench_malloc raised
#include <malloc.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstring>

#include <ATen/Parallel.h>

#include "runtime/models/layers.h"
#include "runtime/train/trainer.h"

using namespace runner;

namespace {

class CrossEntropy : public train::Hooks {
 public:
  std::optional<train::LossResult> compute_loss(models::Module& m, const train::Batch& b, train::LossContext&) override {
    auto logits = m.forward(b.at("x"));
    return train::LossResult{at::cross_entropy_loss(logits, b.at("labels")), {{"logits", logits}}};
  }
};

class Timer : public Callback {
 public:
  std::string name() const override { return "Timer"; }
  void on_event(Event e, const TrainingArguments&, const TrainerState& s, TrainerControl&, const nlohmann::json&) override {
    if (e != Event::kStepEnd || s.global_step != kWarmup) return;
    start = std::chrono::steady_clock::now();
    rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    faults = ru.ru_minflt;
  }
  static constexpr int kWarmup = 5;
  std::chrono::steady_clock::time_point start;
  long faults = 0;
};

}  // namespace

int main(int argc, char** argv) {
  const bool raised = argc > 1 && std::strcmp(argv[1], "raised") == 0;
  if (raised) {  // the settings runtime/cli/process_setup.cpp uses
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
  }
  at::set_num_threads(2);
  const int steps = 40;
  TrainingArguments args;
  args.output_dir = "/tmp/runner_bench_malloc";
  args.max_steps = steps;
  args.per_device_train_batch_size = 256;
  args.save_strategy = "no";
  args.logging_strategy = "no";
  args.finalize();
  at::manual_seed(0);
  auto ds = std::make_shared<data::TensorDataset>(data::Batch{{"x", at::randn({4096, 784})}, {"labels", at::randint(0, 10, {4096})}});
  auto model = std::make_shared<models::Sequential>(std::vector<models::ModulePtr>{
      std::make_shared<models::Linear>(784, 1024), std::make_shared<models::Activation>("ReLU"),
      std::make_shared<models::Linear>(1024, 1024), std::make_shared<models::Activation>("ReLU"),
      std::make_shared<models::Linear>(1024, 10)});
  auto timer = std::make_shared<Timer>();
  train::Trainer trainer(args, model, {ds, nullptr, nullptr}, std::make_shared<CrossEntropy>(), {timer});
  trainer.train();
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - timer->start).count();
  rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  const int timed = steps - Timer::kWarmup;
  std::printf("malloc=%s ms_per_step=%.2f minor_faults_per_step=%.0f\n", raised ? "raised" : "default", ms / timed,
              static_cast<double>(ru.ru_minflt - timer->faults) / timed);
}
