// Shared pieces of the `gpu`-labelled trainer tests: a tiny GPT, token data, and a run that
// returns the trained weights (on the host), the logged losses and the train metrics.
#pragma once
#include "runtime/models/builtin.h"
#include "runtime/device/gpu_info.h"
#include "tests/gpu_test_util.h"
#include "tests/train/train_fixture.h"

namespace runner::testing {

inline models::GPTConfig tiny_gpt() {
  models::GPTConfig c;
  c.vocab_size = 64;
  c.block_size = 32;
  c.n_layer = 2;
  c.n_head = 4;
  c.n_embd = 64;
  return c;
}

inline data::DatasetPtr token_data(int64_t n, int64_t t, uint64_t seed) {
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
inline Trained train_model(TrainingArguments a, models::ModulePtr model, data::DatasetPtr ds, std::shared_ptr<train::Hooks> hooks = nullptr) {
  a.finalize();
  auto rec = std::make_shared<Recorder>();
  train::Datasets d;
  d.train = std::move(ds);
  train::Trainer trainer(a, model, d, hooks, {rec});
  Trained out;
  out.metrics = trainer.train().metrics;
  if (model)  // null: a model_init hook made it
    for (const auto& [n, p] : model->named_parameters()) out.weights.push_back(p.detach().to(at::kCPU));
  for (const auto& l : rec->logs)
    if (l.contains("loss")) out.losses.push_back(l["loss"]);
  return out;
}

inline double max_rel(const std::vector<at::Tensor>& a, const std::vector<at::Tensor>& b) {
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i)
    worst = std::max(worst, (a[i] - b[i]).abs().max().item<double>() / std::max(1e-12, b[i].abs().max().item<double>()));
  return worst;
}

inline TrainingArguments gpt_args(const std::string& name) {
  TrainingArguments a = regression_args(name);
  a.learning_rate = 1e-3;
  a.max_steps = 8;
  a.per_device_train_batch_size = 4;
  a.logging_steps = 1;
  return a;
}

}  // namespace runner::testing
