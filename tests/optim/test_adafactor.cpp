// Adafactor over flat buffers against a per-tensor reference written from the update rule of
// transformers.optimization.Adafactor, with plain ATen ops.
#include <c10/core/GradMode.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "optim_test_model.h"

using namespace runner;
using namespace runner::optim;
using namespace optim_test;

namespace {

const std::vector<GroupOptions> kGroupOptions{{1e-2, 0.1}, {2e-2, 0.0}};
const std::vector<double> kLr{1e-2, 2e-2, 1e-2, 1e-2}, kWd{0.1, 0.0, 0.1, 0.1};  // per model parameter

double rms(const at::Tensor& t) { return t.norm().item<double>() / std::sqrt(static_cast<double>(t.numel())); }

struct RefState {
  at::Tensor row, col, v, m;  // row/col for >= 2-D, v otherwise; m with beta1
};

// transformers' Adafactor for one tensor at step t.
void reference_adafactor(at::Tensor p, RefState& s, int t, double group_lr, double wd, const AdafactorOptions& o) {
  const at::Tensor g = p.grad();
  double lr = group_lr;
  if (o.relative_step) lr = std::min(o.warmup_init ? 1e-6 * t : 1e-2, 1.0 / std::sqrt(t));
  if (o.scale_parameter) lr *= std::max(o.eps2, rms(p));
  const double beta2t = 1.0 - std::pow(t, o.decay_rate);
  const at::Tensor g2 = g * g + o.eps1;
  at::Tensor u;
  if (p.dim() >= 2) {
    if (!s.row.defined()) {
      s.row = at::zeros_like(g2.mean(-1));
      s.col = at::zeros_like(g2.mean(-2));
    }
    s.row = beta2t * s.row + (1 - beta2t) * g2.mean(-1);
    s.col = beta2t * s.col + (1 - beta2t) * g2.mean(-2);
    const at::Tensor r = 1.0 / at::sqrt(s.row / s.row.mean(-1, true));
    const at::Tensor c = 1.0 / at::sqrt(s.col);
    u = r.unsqueeze(-1) * c.unsqueeze(-2) * g;
  } else {
    if (!s.v.defined()) s.v = at::zeros_like(g);
    s.v = beta2t * s.v + (1 - beta2t) * g2;
    u = g / at::sqrt(s.v);
  }
  u = u / std::max(1.0, rms(u) / o.clip_threshold) * lr;
  if (o.beta1) {
    if (!s.m.defined()) s.m = at::zeros_like(g);
    s.m = *o.beta1 * s.m + (1 - *o.beta1) * u;
    u = s.m;
  }
  p -= wd * lr * p;
  p -= u;
}

struct AdafactorRun {
  std::unique_ptr<FlatParams> flat;  // declared first: the optimizer refers to it
  std::unique_ptr<Optimizer> opt;
  std::vector<RefState> ref;  // per model parameter
};

// 5 steps against the reference; the run is returned for layout checks.
AdafactorRun check(const AdafactorOptions& o, double min_move = 1e-4) {
  Model model, ref;
  auto flat = std::make_unique<FlatParams>(model.params, kGroups, 2);
  auto opt = make_adafactor(*flat, kGroupOptions, o);
  std::vector<RefState> states(ref.params.size());
  for (int step = 1; step <= 5; ++step) {
    backward_both(model, *flat, ref, input());
    opt->step();
    c10::NoGradGuard ng;
    for (size_t i = 0; i < states.size(); ++i) reference_adafactor(ref.params[i].second, states[i], step, kLr[i], kWd[i], o);
  }
  expect_same_params(model, ref, min_move);
  return {std::move(flat), std::move(opt), std::move(states)};
}

}  // namespace

// optim="adafactor" in the HF Trainer: scale_parameter=False, relative_step=False, lr given.
TEST(Adafactor, MatchesTrainerDefaults) { check({}); }

TEST(Adafactor, FirstMomentParameterScaleAndClipping) {
  AdafactorOptions o;
  o.beta1 = 0.9;
  o.scale_parameter = true;
  o.clip_threshold = 0.5;  // below the step-1 rms of ~1, so clipping acts
  check(o);
}

TEST(Adafactor, RelativeStepWithWarmupInit) {
  AdafactorOptions o;
  o.relative_step = o.warmup_init = o.scale_parameter = true;
  check(o, 1e-6);  // lr is 1e-6·t here, so the parameters barely move
}

TEST(Adafactor, RelativeStepWithoutWarmup) {
  AdafactorOptions o;
  o.relative_step = true;
  o.decay_rate = -0.5;
  check(o);
}

TEST(Adafactor, StateLayout) {
  AdafactorOptions o;
  o.beta1 = 0.8;
  const AdafactorRun run = check(o);
  const auto& ref = run.ref;
  const auto state = run.opt->state_tensors();
  ASSERT_EQ(state.size(), 4u);
  // Factored slots in flat order: w1 (4,3), w2 (2,4), k (2,3,4); unfactored: b1 (4).
  const at::Tensor row = state.at("exp_avg_sq_row"), col = state.at("exp_avg_sq_col");
  EXPECT_EQ(row.numel(), 4 + 2 + 6);
  EXPECT_EQ(col.numel(), 3 + 4 + 8);
  EXPECT_EQ(state.at("exp_avg_sq").numel(), 4);
  EXPECT_EQ(state.at("exp_avg").numel(), 12 + 4 + 8 + 24);
  auto close = [](const at::Tensor& a, const at::Tensor& b) { return at::allclose(a, b.reshape(-1), 1e-9, 1e-14); };
  EXPECT_TRUE(close(row.narrow(0, 0, 4), ref[0].row));
  EXPECT_TRUE(close(row.narrow(0, 4, 2), ref[2].row));
  EXPECT_TRUE(close(row.narrow(0, 6, 6), ref[3].row));
  EXPECT_TRUE(close(col.narrow(0, 0, 3), ref[0].col));
  EXPECT_TRUE(close(col.narrow(0, 3, 4), ref[2].col));
  EXPECT_TRUE(close(col.narrow(0, 7, 8), ref[3].col));
  EXPECT_TRUE(close(state.at("exp_avg_sq"), ref[1].v));
  // exp_avg follows the flat parameters: w1, w2, k, then b1.
  EXPECT_TRUE(close(state.at("exp_avg").narrow(0, 20, 24), ref[3].m));
  EXPECT_TRUE(close(state.at("exp_avg").narrow(0, 44, 4), ref[1].m));
}

TEST(Adafactor, LowPrecisionParamsUpdateInFloat32) {
  // bfloat16 parameters: state and arithmetic in float32, the result rounded back once.
  at::manual_seed(3);
  std::vector<std::pair<std::string, at::Tensor>> params{{"w", at::randn({4, 3}).to(at::kBFloat16).requires_grad_()},
                                                         {"b", at::randn({4}).to(at::kBFloat16).requires_grad_()}};
  std::vector<at::Tensor> ref;
  for (const auto& [n, t] : params) ref.push_back(t.detach().to(at::kFloat).requires_grad_());
  FlatParams flat(params, {0, 0}, 1);
  auto opt = make_adafactor(flat, {{5e-2, 0.1}}, {});
  for (const auto& [k, t] : opt->state_tensors()) EXPECT_EQ(t.scalar_type(), at::kFloat) << k;
  flat.grad().copy_(at::randn({flat.numel()}));
  opt->step();
  c10::NoGradGuard ng;
  for (size_t i = 0; i < ref.size(); ++i) {
    const ParamSlot& s = flat.slots()[i];
    ref[i].mutable_grad() = flat.grad().narrow(0, s.offset, s.numel).view(s.shape).to(at::kFloat);
    const at::Tensor before = ref[i].to(at::kBFloat16);
    RefState st;
    reference_adafactor(ref[i], st, 1, 5e-2, 0.1, {});
    EXPECT_TRUE(params[i].second.equal(ref[i].to(at::kBFloat16))) << s.name;
    EXPECT_FALSE(params[i].second.equal(before)) << s.name;
  }
}

TEST(Adafactor, StateKeysFollowOptions) {
  Model model;
  FlatParams flat(model.params, kGroups, 2);
  auto opt = make_adafactor(flat, kGroupOptions, {});
  std::vector<std::string> keys;
  for (const auto& [k, t] : opt->state_tensors()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"exp_avg_sq", "exp_avg_sq_col", "exp_avg_sq_row"}));
  // Only 1-D parameters: no factored statistics at all.
  std::vector<std::pair<std::string, at::Tensor>> vecs{{"a", at::ones({3}).requires_grad_()}, {"b", at::ones({5}).requires_grad_()}};
  FlatParams flat1(vecs, {0, 0}, 1);
  auto opt1 = make_adafactor(flat1, {{1e-2, 0.0}}, {});
  EXPECT_EQ(opt1->state_tensors().size(), 1u);
  EXPECT_EQ(opt1->state_tensors().at("exp_avg_sq").numel(), 8);
}

TEST(Adafactor, StateRoundTrip) {
  expect_resume_matches([](FlatParams& f) {
    AdafactorOptions o;
    o.beta1 = 0.9;
    return make_adafactor(f, kGroupOptions, o);
  });
  expect_resume_matches([](FlatParams& f) { return make_adafactor(f, kGroupOptions, {}); });
}

TEST(Adafactor, OptionChecks) {
  Model model;
  FlatParams flat(model.params, kGroups, 2);
  AdafactorOptions o;
  o.warmup_init = true;  // transformers: warmup_init requires relative_step
  EXPECT_THROW(make_adafactor(flat, kGroupOptions, o), ArgumentError);
  o = {};
  o.clip_threshold = 0;
  EXPECT_THROW(make_adafactor(flat, kGroupOptions, o), ArgumentError);
}
