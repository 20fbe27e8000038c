// make_gpt and from_pretrained against an independent PyTorch GPT-2 (gpt_reference.py, run
// with the build's Python): logits, loss and every first-step gradient, fp32.
#include <c10/core/GradMode.h>
#include <gtest/gtest.h>

#include <iostream>

#include "runtime/io/safetensors.h"
#include "runtime/models/builtin.h"
#include "runtime/models/pretrained.h"
#include "tests/models/model_test_util.h"

using namespace runner;
using namespace runner::models;
using runner::models::test::rel_error;

namespace {

constexpr double kTolerance = 1e-5;

const char* kConfig = R"({"model_type": "gpt2", "vocab_size": 65, "n_positions": 32, "n_ctx": 32, "n_embd": 64,
  "n_layer": 2, "n_head": 2, "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new",
  "resid_pdrop": 0.1, "embd_pdrop": 0.1, "attn_pdrop": 0.1, "architectures": ["GPT2LMHeadModel"]})";

GPTConfig tiny_config() {
  GPTConfig c;
  c.vocab_size = 65;
  c.block_size = 32;
  c.n_layer = 2;
  c.n_head = 2;
  c.n_embd = 64;
  return c;
}

// GPT-2's init gives near-uniform logits and tiny gradients; a golden test is only as
// strong as the signal it compares, so spread the weights out (sharp attention, non-trivial
// LayerNorm affines) before comparing.
void spread_weights(Module& model) {
  c10::NoGradGuard no_grad;
  for (auto& [name, p] : model.named_parameters()) {
    if (name.find("ln_") != std::string::npos && name.size() > 7 && name.compare(name.size() - 7, 7, ".weight") == 0)
      p.copy_(1.0 + 0.2 * at::randn_like(p));
    else if (name.find("wte") != std::string::npos || name.find("wpe") != std::string::npos)
      p.copy_(0.5 * at::randn_like(p));
    else if (name.compare(name.size() - 5, 5, ".bias") == 0)
      p.copy_(0.05 * at::randn_like(p));
    else
      p.copy_(0.15 * at::randn_like(p));
  }
}

TensorMap golden_batch() {
  at::Tensor ids = at::randint(0, 65, {3, 24}, at::kLong);
  at::Tensor labels = ids.clone();
  labels.narrow(1, 0, 4).fill_(-100);            // a prompt that is not trained on
  labels[2].narrow(0, 18, 6).fill_(-100);        // right padding
  return {{"input_ids", ids}, {"labels", labels}};
}

io::NamedTensors run_reference(const std::string& dir, const std::string& weights, const TensorMap& batch) {
  io::save_safetensors(dir + "/batch.safetensors", io::NamedTensors(batch.begin(), batch.end()));
  const std::string out = dir + "/reference.safetensors";
  const int status = test::run_python("gpt_reference.py", dir + "/config.json " + weights + " " + dir + "/batch.safetensors " + out);
  EXPECT_EQ(status, 0) << "gpt_reference.py failed";
  return status == 0 ? io::load_safetensors(out) : io::NamedTensors{};
}

at::Tensor find(const io::NamedTensors& ts, const std::string& name) { return test::find_named(ts, name); }

}  // namespace

TEST(GPTGolden, LogitsLossAndGradientsMatchPyTorch) {
  if (!test::python_torch_available()) GTEST_SKIP() << RUNNER_PYTHON " cannot import torch (run scripts/setup)";
  at::manual_seed(1234);
  ModulePtr model = make_gpt(tiny_config());
  spread_weights(*model);
  const std::string dir = test::temp_dir("gpt_golden");
  test::write_text(dir + "/config.json", kConfig);
  io::save_safetensors(dir + "/model.safetensors", model->state_dict());
  const TensorMap batch = golden_batch();
  const io::NamedTensors ref = run_reference(dir, dir + "/model.safetensors", batch);
  ASSERT_FALSE(ref.empty());

  model->train();
  TensorMap out = model->forward_batch(batch);
  out.at("loss").backward();
  const double logits_err = rel_error(out.at("logits"), find(ref, "logits"));
  const double loss_err = rel_error(out.at("loss"), find(ref, "loss"));
  EXPECT_LT(logits_err, kTolerance);
  EXPECT_LT(loss_err, kTolerance);
  const test::GradientReport grads = test::expect_gradients_match(*model, ref, kTolerance);
  const double worst_grad = grads.worst;
  const std::string& worst_name = grads.worst_name;
  const size_t compared = grads.compared;
  EXPECT_EQ(compared, 4u + 12u * 2u);  // wte, wpe, ln_f ×2 + 12 per block
  std::cout << "[golden] loss " << out.at("loss").item<double>() << " | max rel err: logits " << logits_err << ", loss " << loss_err
            << ", gradients " << worst_grad << " (" << worst_name << ")\n";
  RecordProperty("logits_rel_err", std::to_string(logits_err));
  RecordProperty("grad_rel_err", std::to_string(worst_grad));
  std::filesystem::remove_all(dir);
}

TEST(GPTGolden, HubStyleCheckpointLoadsThroughFromPretrained) {
  if (!test::python_torch_available()) GTEST_SKIP() << RUNNER_PYTHON " cannot import torch (run scripts/setup)";
  at::manual_seed(99);
  ModulePtr source = make_gpt(tiny_config());
  spread_weights(*source);
  // What the hub's gpt2 model.safetensors looks like: GPT2Model names, no lm_head, and the
  // attention mask buffers saved along.
  io::NamedTensors hub;
  for (const auto& [name, t] : source->state_dict()) {
    if (name == "lm_head.weight") continue;
    hub.emplace_back(name.substr(std::string("transformer.").size()), t);
  }
  for (int i = 0; i < 2; ++i) {
    hub.emplace_back("h." + std::to_string(i) + ".attn.bias", at::ones({32, 32}).tril().view({1, 1, 32, 32}));
    hub.emplace_back("h." + std::to_string(i) + ".attn.masked_bias", at::full({}, -1e4));
  }
  const std::string dir = test::temp_dir("gpt_hub");
  test::write_text(dir + "/config.json", kConfig);
  io::save_safetensors(dir + "/model.safetensors", hub, {{"format", "pt"}});
  TensorMap batch = golden_batch();
  const io::NamedTensors ref = run_reference(dir, dir + "/model.safetensors", batch);
  ASSERT_FALSE(ref.empty());

  ModulePtr loaded = from_pretrained(dir);
  EXPECT_FALSE(loaded->is_training());  // like HF's from_pretrained, so resid_pdrop = 0.1 is off
  TensorMap out = loaded->forward_batch(batch);
  const double logits_err = rel_error(out.at("logits"), find(ref, "logits"));
  EXPECT_LT(logits_err, kTolerance);
  EXPECT_LT(rel_error(out.at("loss"), find(ref, "loss")), kTolerance);
  // Exactly the source's weights, tied head included.
  const NamedTensorList want = source->state_dict(), got = loaded->state_dict();
  ASSERT_EQ(want.size(), got.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(want[i].first, got[i].first);
    EXPECT_TRUE(want[i].second.equal(got[i].second)) << want[i].first;
  }
  std::cout << "[golden] hub-style checkpoint: max rel err logits " << logits_err << "\n";
  std::filesystem::remove_all(dir);
}
