// Shared pieces of the trainer tests: HF's RegressionDataset / RegressionModel analogue
// (y = a·x + b + noise, a model learning a and b), a C++ fake Hooks, and a callback that
// records every event.
#pragma once
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "runtime/core/errors.h"
#include <ATen/CPUGeneratorImpl.h>

#include "runtime/io/atomic_file.h"
#include "runtime/io/checkpoint.h"
#include "runtime/models/layers.h"
#include "runtime/train/trainer.h"

namespace runner::testing {

namespace fs = std::filesystem;

// y = 2x + 3 + noise, x (N, 1).
inline data::DatasetPtr regression_data(int64_t n, uint64_t seed = 0) {
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  auto x = at::randn({n, 1}, gen);
  auto y = 2 * x + 3 + 0.1 * at::randn({n, 1}, gen);
  return std::make_shared<data::TensorDataset>(data::Batch{{"x", x}, {"labels", y}});
}

// A model returning {loss, logits} like HF's RegressionModel (a, b as a Linear(1, 1)),
// optionally with dropout so RNG state matters.
class RegressionModel : public models::Module {
 public:
  explicit RegressionModel(double dropout = 0.0) : Module("RegressionModel"), dropout_(dropout) {
    at::manual_seed(123);
    hidden = register_module("hidden", std::make_shared<models::Linear>(1, 8));
    out = register_module("out", std::make_shared<models::Linear>(8, 1));
  }
  bool takes_batch() const override { return true; }
  models::TensorMap forward_batch_impl(const models::TensorMap& b) override {
    at::Tensor h = at::dropout(at::tanh(hidden->forward(b.at("x"))), dropout_, is_training());
    at::Tensor y = out->forward(h);
    models::TensorMap o{{"logits", y}};
    if (b.count("labels")) o["loss"] = at::mse_loss(y, b.at("labels"));
    return o;
  }
  models::ModulePtr hidden, out;
  double dropout_;
};

class Recorder : public Callback {
 public:
  std::string name() const override { return "Recorder"; }
  void on_event(Event e, const TrainingArguments&, const TrainerState& s, TrainerControl&, const nlohmann::json& payload) override {
    events.push_back(event_name(e));
    if (e == Event::kLog) logs.push_back(payload);
    if (e == Event::kEvaluate) evals.push_back(payload);
    if (e == Event::kSave) saves.push_back(s.global_step);
  }
  int count(const std::string& e) const { return static_cast<int>(std::count(events.begin(), events.end(), e)); }
  std::vector<std::string> events;
  std::vector<nlohmann::json> logs, evals;
  std::vector<int64_t> saves;
};

inline std::string temp_output(const std::string& name) {
  const auto dir = fs::temp_directory_path() / ("runner_train_" + std::to_string(::getpid())) / name;
  fs::remove_all(dir);
  return dir.string();
}

// HF's test defaults: batch 8, 3 epochs, lr 0.1; no saving unless asked.
inline TrainingArguments regression_args(const std::string& name) {
  TrainingArguments a;
  a.output_dir = temp_output(name);
  a.learning_rate = 0.1;
  a.save_strategy = "no";
  a.disable_tqdm = true;
  return a;
}

struct Run {
  std::shared_ptr<Recorder> recorder = std::make_shared<Recorder>();
  std::shared_ptr<RegressionModel> model;
  std::unique_ptr<train::Trainer> trainer;
  train::TrainOutput output;
};

inline Run train_regression(TrainingArguments a, int64_t n_train = 64, int64_t n_eval = 64, double dropout = 0.0,
                            std::shared_ptr<train::Hooks> hooks = nullptr, std::vector<std::shared_ptr<Callback>> extra = {}) {
  a.finalize();
  Run r;
  r.model = std::make_shared<RegressionModel>(dropout);
  train::Datasets ds;
  ds.train = regression_data(n_train, 1);
  if (n_eval > 0) ds.eval = regression_data(n_eval, 2);
  extra.insert(extra.begin(), r.recorder);
  r.trainer = std::make_unique<train::Trainer>(a, r.model, ds, hooks, extra);
  r.output = r.trainer->train();
  return r;
}

inline std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

inline std::vector<int64_t> checkpoint_steps(const std::string& dir) {
  std::vector<int64_t> out;
  for (const auto& [step, path] : io::list_checkpoints(dir)) out.push_back(step);
  return out;
}

}  // namespace runner::testing
