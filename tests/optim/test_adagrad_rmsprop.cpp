// Adagrad and RMSprop over flat buffers against per-tensor references written from
// torch.optim's update rules (single-tensor path) with plain ATen ops.
#include <c10/core/GradMode.h>
#include <gtest/gtest.h>

#include <cmath>

#include "optim_test_model.h"

using namespace runner;
using namespace runner::optim;
using namespace optim_test;

namespace {

// Group 0 (w1, w2, k) has weight decay and a different lr than group 1 (b1).
const std::vector<GroupOptions> kGroupOptions{{1e-2, 0.1}, {2e-2, 0.0}};
const std::vector<double> kLr{1e-2, 2e-2, 1e-2, 1e-2}, kWd{0.1, 0.0, 0.1, 0.1};  // per model parameter

// torch.optim.Adagrad, one tensor.
void reference_adagrad(at::Tensor p, at::Tensor sum, int step, double lr, double wd, const AdagradOptions& o) {
  at::Tensor g = p.grad() + wd * p;
  const double clr = lr / (1 + (step - 1) * o.lr_decay);
  sum += g * g;
  p -= clr * g / (at::sqrt(sum) + o.eps);
}

// torch.optim.RMSprop, one tensor; grad_avg / buf are only touched when in use.
void reference_rmsprop(at::Tensor p, at::Tensor v, at::Tensor grad_avg, at::Tensor buf, double lr, double wd, const RMSpropOptions& o) {
  at::Tensor g = p.grad() + wd * p;
  v.copy_(o.alpha * v + (1 - o.alpha) * g * g);
  at::Tensor denom;
  if (o.centered) {
    grad_avg.copy_(o.alpha * grad_avg + (1 - o.alpha) * g);
    denom = at::sqrt(v - grad_avg * grad_avg) + o.eps;
  } else {
    denom = at::sqrt(v) + o.eps;
  }
  if (o.momentum > 0) {
    buf.copy_(o.momentum * buf + g / denom);
    p -= lr * buf;
  } else {
    p -= lr * g / denom;
  }
}

void check_adagrad(const AdagradOptions& o) {
  Model model, ref;
  FlatParams flat(model.params, kGroups, 2);
  auto opt = make_adagrad(flat, kGroupOptions, o);
  std::vector<at::Tensor> sums;
  for (const auto& t : ref.tensors()) sums.push_back(at::full_like(t, o.initial_accumulator_value).detach());
  for (int step = 1; step <= 5; ++step) {
    backward_both(model, flat, ref, input());
    opt->step();
    c10::NoGradGuard ng;
    for (size_t i = 0; i < sums.size(); ++i) reference_adagrad(ref.params[i].second, sums[i], step, kLr[i], kWd[i], o);
  }
  expect_same_params(model, ref);
  // The flat state is the per-tensor state laid out like the flat parameters.
  const at::Tensor sum = opt->state_tensors().at("sum");
  for (size_t i = 0; i < flat.slots().size(); ++i) {
    const ParamSlot& s = flat.slots()[i];
    const size_t model_index = s.name == "w1" ? 0 : s.name == "b1" ? 1 : s.name == "w2" ? 2 : 3;
    EXPECT_TRUE(at::allclose(sum.narrow(0, s.offset, s.numel), sums[model_index].reshape(-1), 1e-9, 1e-12)) << s.name;
  }
}

void check_rmsprop(const RMSpropOptions& o) {
  Model model, ref;
  FlatParams flat(model.params, kGroups, 2);
  auto opt = make_rmsprop(flat, kGroupOptions, o);
  std::vector<at::Tensor> v, m, buf;
  for (const auto& t : ref.tensors()) {
    v.push_back(at::zeros_like(t).detach());
    m.push_back(at::zeros_like(t).detach());
    buf.push_back(at::zeros_like(t).detach());
  }
  for (int step = 1; step <= 5; ++step) {
    backward_both(model, flat, ref, input());
    opt->step();
    c10::NoGradGuard ng;
    for (size_t i = 0; i < v.size(); ++i) reference_rmsprop(ref.params[i].second, v[i], m[i], buf[i], kLr[i], kWd[i], o);
  }
  expect_same_params(model, ref);
}

std::vector<std::string> keys(const Optimizer& opt) {
  std::vector<std::string> out;
  for (const auto& [k, t] : opt.state_tensors()) out.push_back(k);
  return out;
}

}  // namespace

TEST(Adagrad, MatchesTorchAdagradPerTensor) { check_adagrad({}); }
TEST(Adagrad, LrDecayAndInitialAccumulator) { check_adagrad({0.5, 0.1, 1e-10}); }

TEST(Adagrad, StateRoundTrip) {
  expect_resume_matches([](FlatParams& f) { return make_adagrad(f, kGroupOptions, {0.5, 0.1, 1e-10}); });
}

TEST(Adagrad, OptionChecks) {
  Model model;
  FlatParams flat(model.params, kGroups, 2);
  EXPECT_THROW(make_adagrad(flat, kGroupOptions, {-0.1, 0.0, 1e-10}), ArgumentError);
  EXPECT_THROW(make_adagrad(flat, kGroupOptions, {0.0, -1.0, 1e-10}), ArgumentError);
  EXPECT_THROW(make_adagrad(flat, kGroupOptions, {0.0, 0.0, -1.0}), ArgumentError);
}

TEST(RMSprop, MatchesTorchRMSpropPerTensor) { check_rmsprop({}); }
TEST(RMSprop, CenteredWithMomentum) { check_rmsprop({0.9, 1e-8, 0.5, true}); }
TEST(RMSprop, MomentumOnly) { check_rmsprop({0.95, 1e-6, 0.9, false}); }
TEST(RMSprop, CenteredOnly) { check_rmsprop({0.9, 1e-8, 0.0, true}); }

TEST(RMSprop, StateKeysFollowOptions) {
  Model model;
  FlatParams flat(model.params, kGroups, 2);
  EXPECT_EQ(keys(*make_rmsprop(flat, kGroupOptions, {})), std::vector<std::string>{"square_avg"});
  EXPECT_EQ(keys(*make_rmsprop(flat, kGroupOptions, {0.99, 1e-8, 0.9, true})),
            (std::vector<std::string>{"grad_avg", "momentum_buffer", "square_avg"}));
  EXPECT_THROW(make_rmsprop(flat, kGroupOptions, {0.99, 1e-8, -0.9, false}), ArgumentError);
  EXPECT_THROW(make_rmsprop(flat, kGroupOptions, {-0.5, 1e-8, 0.0, false}), ArgumentError);
}

TEST(RMSprop, StateRoundTrip) {
  expect_resume_matches([](FlatParams& f) { return make_rmsprop(f, kGroupOptions, {0.9, 1e-8, 0.5, true}); });
  expect_resume_matches([](FlatParams& f) { return make_rmsprop(f, kGroupOptions, {}); });
}
