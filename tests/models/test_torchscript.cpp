// load_torchscript against modules scripted by the build's Python (make_torchscript.py).
#include <c10/core/GradMode.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/core/errors.h"
#include "runtime/io/safetensors.h"
#include "runtime/models/pretrained.h"
#include "runtime/models/torchscript.h"
#include "tests/models/model_test_util.h"

using namespace runner;
using namespace runner::models;

namespace {

class TorchScript : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!test::python_torch_available()) return;
    dir_ = test::temp_dir("torchscript");
    if (test::run_python("make_torchscript.py", dir_) != 0) return;
    for (auto& [name, t] : io::load_safetensors(dir_ + "/reference.safetensors")) ref_[name] = t;
  }
  static void TearDownTestSuite() {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  void SetUp() override {
    if (!test::python_torch_available()) GTEST_SKIP() << RUNNER_PYTHON " cannot import torch (run scripts/setup)";
    ASSERT_FALSE(ref_.empty()) << "make_torchscript.py failed";
  }
  static std::string path(const std::string& file) { return dir_ + "/" + file; }
  static at::Tensor ref(const std::string& name) { return ref_.at(name); }

  static std::string dir_;
  static TensorMap ref_;
};

std::string TorchScript::dir_;
TensorMap TorchScript::ref_;

std::vector<std::string> keys(const NamedTensorList& l) {
  std::vector<std::string> out;
  for (const auto& [n, t] : l) out.push_back(n);
  return out;
}

}  // namespace

TEST_F(TorchScript, ParametersAndBuffersUnderPyTorchNames) {
  auto m = load_torchscript(path("mlp.pt"));
  EXPECT_THAT(keys(m->named_parameters()),
              ::testing::ElementsAre("fc1.weight", "fc1.bias", "norm.weight", "norm.bias", "fc2.weight", "fc2.bias"));
  EXPECT_THAT(keys(m->state_dict()), ::testing::ElementsAre("fc1.weight", "fc1.bias", "norm.weight", "norm.bias", "norm.running_mean",
                                                            "norm.running_var", "norm.num_batches_tracked", "fc2.weight", "fc2.bias"));
  for (const auto& [name, t] : m->state_dict()) EXPECT_TRUE(t.equal(ref("mlp.state." + name))) << name;
  for (const auto& [name, t] : m->named_parameters()) EXPECT_TRUE(t.requires_grad()) << name;
  EXPECT_EQ(m->child("fc1")->type_name(), "Linear");
  EXPECT_TRUE(m->takes_batch());
  EXPECT_EQ(m->input_names(), (std::vector<std::string>{"x", "labels"}));
}

TEST_F(TorchScript, ForwardMatchesPython) {
  auto m = load_torchscript(path("mlp.pt"));
  EXPECT_TRUE(m->is_training());  // saved in training mode
  m->eval();
  TensorMap out = m->forward_batch({{"x", ref("x")}, {"labels", ref("labels")}});
  EXPECT_TRUE(at::allclose(out.at("logits"), ref("mlp.logits"), 1e-5, 1e-6));
  EXPECT_TRUE(at::allclose(out.at("loss"), ref("mlp.loss"), 1e-5, 1e-6));
  // Without labels the (None, logits) tuple gives just the logits.
  out = m->forward_batch({{"x", ref("x")}, {"unused", ref("labels")}});
  EXPECT_EQ(out.size(), 1u);
  EXPECT_TRUE(at::allclose(out.at("logits"), ref("mlp.logits"), 1e-5, 1e-6));

  auto d = load_torchscript(path("dict.pt"));
  EXPECT_TRUE(d->input_names().empty());
  out = d->forward_batch({{"x", ref("x")}, {"labels", ref("labels")}});
  EXPECT_TRUE(at::allclose(out.at("logits"), ref("dict.logits"), 1e-5, 1e-6));
  EXPECT_TRUE(at::allclose(out.at("loss"), ref("dict.loss"), 1e-5, 1e-6));

  auto p = load_torchscript(path("plain.pt"));
  out = p->forward_batch({{"x", ref("x")}, {"labels", ref("labels")}});
  EXPECT_EQ(out.size(), 1u);
  EXPECT_TRUE(at::allclose(out.at("logits"), ref("plain.logits"), 1e-5, 1e-6));
}

TEST_F(TorchScript, TrainAndEvalReachTheScriptModule) {
  auto m = load_torchscript(path("mlp.pt"));
  at::Tensor running_mean = m->child("norm")->buffer("running_mean");
  const at::Tensor before = running_mean.clone();
  m->eval();
  at::Tensor a = m->forward_batch({{"x", ref("x")}}).at("logits");
  EXPECT_TRUE(a.equal(m->forward_batch({{"x", ref("x")}}).at("logits")));  // no dropout
  EXPECT_TRUE(running_mean.equal(before));                                 // BatchNorm uses its statistics
  m->train();
  at::Tensor b = m->forward_batch({{"x", ref("x")}}).at("logits");
  EXPECT_FALSE(running_mean.equal(before));  // BatchNorm updates the (shared) buffer
  EXPECT_FALSE(b.equal(a));
  // As a child of another module, too.
  auto parent = std::make_shared<Module>("Wrapper");
  parent->register_module("inner", m);
  parent->eval();
  EXPECT_FALSE(m->is_training());
  EXPECT_TRUE(m->forward_batch({{"x", ref("x")}}).at("logits").equal(m->forward_batch({{"x", ref("x")}}).at("logits")));
}

TEST_F(TorchScript, GradientsFlowAndTrainingChangesTheScriptModule) {
  at::manual_seed(0);
  auto m = load_torchscript(path("mlp.pt"));
  m->train();
  const TensorMap batch{{"x", ref("x")}, {"labels", ref("labels")}};
  std::vector<at::Tensor> initial;
  for (const auto& p : m->parameters()) initial.push_back(p.detach().clone());
  double first = 0, last = 0;
  for (int step = 0; step < 20; ++step) {
    for (auto& p : m->parameters()) p.mutable_grad() = at::Tensor();
    at::Tensor loss = m->forward_batch(batch).at("loss");
    loss.backward();
    for (const auto& [name, p] : m->named_parameters()) {
      ASSERT_TRUE(p.grad().defined()) << name;
      EXPECT_GT(p.grad().abs().sum().item<double>(), 0) << name;
    }
    c10::NoGradGuard g;
    for (auto& p : m->parameters()) p.sub_(0.2 * p.grad());
    (step == 0 ? first : last) = loss.item<double>();
  }
  EXPECT_LT(last, first);
  const auto params = m->parameters();
  for (size_t i = 0; i < params.size(); ++i) EXPECT_FALSE(params[i].equal(initial[i]));

  // The optimizer moves parameters into a flat buffer with set_data: the script module
  // must compute with the moved tensors.
  m->eval();
  at::Tensor before = m->forward_batch({{"x", ref("x")}}).at("logits");
  at::Tensor bias = m->child("fc2")->parameter("bias");
  {
    c10::NoGradGuard g;
    bias.set_data(bias.detach().clone() + 1.0);
  }
  at::Tensor after = m->forward_batch({{"x", ref("x")}}).at("logits");
  EXPECT_TRUE(at::allclose(after, before + 1.0, 1e-5, 1e-5));

  // And a state dict saved from it loads into a fresh copy with the same outputs.
  io::save_safetensors(path("trained.safetensors"), m->state_dict());
  auto fresh = load_torchscript(path("mlp.pt"));
  load_weights(*fresh, path("trained.safetensors"));
  fresh->eval();
  EXPECT_TRUE(at::allclose(fresh->forward_batch({{"x", ref("x")}}).at("logits"), after));
}

TEST_F(TorchScript, ClearErrors) {
  auto m = load_torchscript(path("mlp.pt"));
  try {
    m->forward_batch({{"input", ref("x")}, {"labels", ref("labels")}});
    FAIL();
  } catch (const RecipeError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("forward() needs the argument \"x\", which the batch does not have (fields: input, labels)"));
  }
  try {
    m->forward_batch({{"x", at::randn({8, 5})}});
    FAIL();
  } catch (const RecipeError& e) {
    // One line: the final message, then where in the Python source it came from.
    EXPECT_THAT(e.what(), ::testing::HasSubstr("forward failed: RuntimeError: mat1 and mat2 shapes cannot be multiplied (8x5 and 6x16)"));
    EXPECT_THAT(e.what(), ::testing::HasSubstr("make_torchscript.py\", line"));
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
  EXPECT_THROW(load_torchscript(path("missing.pt")), CheckpointError);
  test::write_text(path("garbage.pt"), "not a zip");
  try {
    load_torchscript(path("garbage.pt"));
    FAIL();
  } catch (const CheckpointError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("not a loadable TorchScript module"));
  }
}
