// The flat-buffer optimizers against per-tensor references written from torch.optim's
// update rules with plain ATen ops.
#include <c10/core/GradMode.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "runtime/core/errors.h"
#include "runtime/optim/grad_accumulator.h"
#include <torch/csrc/autograd/custom_function.h>
#include "runtime/optim/optimizer.h"

using namespace runner;
using namespace runner::optim;

namespace {

struct Model {
  std::vector<std::pair<std::string, at::Tensor>> params;
  Model() {
    at::manual_seed(7);
    params = {{"w1", at::randn({4, 3}).requires_grad_()}, {"b1", at::randn({4}).requires_grad_()},
              {"w2", at::randn({2, 4}).requires_grad_()}};
  }
  at::Tensor loss(const at::Tensor& x) const {
    return (at::linear(at::tanh(at::linear(x, params[0].second, params[1].second)), params[2].second)).pow(2).mean();
  }
};

// torch.optim.AdamW._single_tensor_adamw, one tensor at a time.
void reference_adamw(std::vector<at::Tensor>& p, const std::vector<at::Tensor>& g, std::vector<at::Tensor>& m,
                     std::vector<at::Tensor>& v, int step, double lr, std::vector<double> wd, double b1, double b2, double eps) {
  for (size_t i = 0; i < p.size(); ++i) {
    p[i].mul_(1 - lr * wd[i]);
    m[i].mul_(b1).add_(g[i], 1 - b1);
    v[i].mul_(b2).addcmul_(g[i], g[i], 1 - b2);
    const double bc1 = 1 - std::pow(b1, step), bc2 = 1 - std::pow(b2, step);
    auto denom = (v[i].sqrt() / std::sqrt(bc2)).add_(eps);
    p[i].addcdiv_(m[i], denom, -lr / bc1);
  }
}

// A window of two micro-steps on both models: w2 unused in the first, and in window 1 it
// gets no gradient at all.
void two_micro_steps(const Model& a, const Model& b, int window) {
  const at::Tensor x1 = at::randn({5, 3}), x2 = at::randn({5, 3});
  for (const Model* m : {&a, &b}) {
    at::tanh(at::linear(x1, m->params[0].second, m->params[1].second)).sum().backward();
    if (window != 1) m->loss(x2).backward();
  }
}

}  // namespace

TEST(FlatParams, ParametersBecomeViewsAndGradsAccumulateInPlace) {
  Model model;
  const auto before = model.params[1].second.detach().clone();
  FlatParams flat(model.params, {0, 1, 0}, 2);
  EXPECT_EQ(flat.numel(), 12 + 4 + 8);
  // group 0 = w1, w2 contiguous; group 1 = b1
  EXPECT_EQ(flat.groups()[0].begin, 0);
  EXPECT_EQ(flat.groups()[0].end, 20);
  EXPECT_EQ(flat.groups()[1].end, 24);
  EXPECT_TRUE(model.params[1].second.equal(before));  // values preserved
  EXPECT_EQ(model.params[1].second.data_ptr(), flat.data().narrow(0, 20, 4).data_ptr());
  auto x = at::randn({5, 3});
  model.loss(x).backward();
  model.loss(x).backward();
  EXPECT_EQ(model.params[0].second.grad().data_ptr(), flat.grad().data_ptr());
  at::Tensor g_twice = flat.grad().clone();
  flat.zero_grad();
  model.loss(x).backward();
  EXPECT_TRUE(at::allclose(g_twice, 2 * flat.grad()));
}

// First-write mode against the zeroed buffer: the same gradients bit for bit over windows
// of two micro-steps, with a parameter unused in one micro-step and one unused for a whole
// window, though the buffer is never zeroed (it starts as NaN here).
TEST(FlatParams, FirstWriteGivesTheAccumulatedGradientsWithoutZeroing) {
  Model a, b;
  FlatParams zeroed(a.params, {0, 1, 0}, 2), first(b.params, {0, 1, 0}, 2);
  first.write_grads_on_first_accumulation();
  ASSERT_TRUE(first.writes_grads_on_first_accumulation());
  for (const auto& [name, p] : b.params) EXPECT_FALSE(p.grad().defined()) << name << ": set to none, as torch's zero_grad does";
  first.grad().fill_(std::numeric_limits<float>::quiet_NaN());
  at::manual_seed(3);
  for (int window = 0; window < 3; ++window) {
    two_micro_steps(a, b, window);
    if (window == 0) {  // in the slot since its first accumulation, not in autograd's own tensor
      EXPECT_EQ(b.params[0].second.grad().data_ptr(), first.grad().data_ptr());
      EXPECT_EQ(b.params[1].second.grad().data_ptr(), first.grad().narrow(0, 20, 4).data_ptr());
    }
    first.ensure_grad_views();
    EXPECT_TRUE(at::equal(first.grad(), zeroed.grad())) << "window " << window;
    for (size_t i = 0; i < b.params.size(); ++i) EXPECT_TRUE(at::equal(b.params[i].second.grad(), a.params[i].second.grad())) << i;
    at::Tensor before = first.grad().clone();
    zeroed.zero_grad();
    first.zero_grad();
    EXPECT_TRUE(at::equal(first.grad(), before)) << "zero_grad leaves the buffer alone";
    for (const auto& [name, p] : b.params) EXPECT_FALSE(p.grad().defined()) << name;
  }
  // No gradient at all in a window: all zero.
  first.ensure_grad_views();
  EXPECT_TRUE(first.grad().eq(0).all().item<bool>());
}

// A parameter whose node gives it no gradient (an undefined one, as a custom autograd node
// may) reads as zeros in first-write mode right after backward, as the zeroed buffer would:
// DDP's buckets reduce its slot as soon as its accumulator ran, not only at the step.
TEST(FlatParams, FirstWriteZeroesASlotReachedWithoutAGradient) {
  struct NoGradFor : torch::autograd::Function<NoGradFor> {
    static at::Tensor forward(torch::autograd::AutogradContext*, const at::Tensor& x, const at::Tensor& w) { return x * w.sum(); }
    static torch::autograd::variable_list backward(torch::autograd::AutogradContext*, torch::autograd::variable_list g) {
      return {g[0], at::Tensor()};
    }
  };
  Model m;
  FlatParams flat(m.params, {0, 0, 0}, 1);
  flat.write_grads_on_first_accumulation();
  flat.grad().fill_(std::numeric_limits<float>::quiet_NaN());  // what a last window left
  const at::Tensor& w2 = m.params[2].second;
  const at::Tensor h = at::linear(at::randn({5, 3}), m.params[0].second, m.params[1].second).pow(2).mean();  // w1, b1
  NoGradFor::apply(h, w2).backward();  // w2 only through the node
  ASSERT_TRUE(w2.grad().defined()) << "reached: the slot is its gradient";
  EXPECT_EQ(w2.grad().data_ptr(), flat.grad().narrow(0, 16, 8).data_ptr());
  EXPECT_TRUE(w2.grad().eq(0).all().item<bool>());
  EXPECT_TRUE(at::isfinite(flat.grad()).all().item<bool>());
}

// The hooks live on autograd's nodes, which outlive a FlatParams while their parameters do
// (a second FlatParams over the same model): they go with the FlatParams that added them.
TEST(FlatParams, FirstWriteHooksGoWithTheirFlatParams) {
  Model m;
  std::shared_ptr<torch::autograd::Node> node;
  size_t with = 0;
  {
    FlatParams a(m.params, {0, 0, 0}, 1);
    a.write_grads_on_first_accumulation();
    node = grad_accumulator(m.params[0].second);
    ASSERT_TRUE(node);
    with = node->post_hooks().size();
    EXPECT_GE(with, 1u);
  }
  EXPECT_EQ(node->post_hooks().size(), with - 1);
  FlatParams b(m.params, {0, 0, 0}, 1);
  b.write_grads_on_first_accumulation();
  m.loss(at::randn({5, 3})).backward();
  b.ensure_grad_views();
  EXPECT_EQ(m.params[0].second.grad().data_ptr(), b.grad().data_ptr());
  EXPECT_TRUE(b.grad().isfinite().all().item<bool>());
}

// Gradients left to autograd: no flat gradient exists, each parameter keeps the tensor
// autograd made (later micro-steps add into it), zero_grad frees them, and the fused AdamW
// and SGD kernels over those lists step as over the zeroed flat buffer: windows of two
// micro-steps, w2 unused in one micro-step, and a window where it gets no gradient. The
// gradients are equal bit for bit; the updates to a float rounding, because PyTorch's CPU
// kernels round a tensor's vectorised body and its scalar tail differently (fused
// multiply-adds), and a list of tensors has other tails than one flat range.
TEST(FlatParams, GradientsLeftToAutogradStepLikeTheFlatBuffer) {
  for (const char* optim : {"adamw", "sgd"}) {
    SCOPED_TRACE(optim);
    Model a, b;
    FlatParams flat(a.params, {0, 1, 0}, 2), left(b.params, {0, 1, 0}, 2);
    const std::vector<GroupOptions> groups = {{0.05, 0.1}, {0.02, 0.0}};
    auto make = [&](FlatParams& f) {
      return std::string(optim) == "sgd" ? make_sgd(f, groups, {0.9, 0.1, false}) : make_adamw(f, groups, {0.9, 0.999, 1e-8, /*fused=*/true});
    };
    auto oa = make(flat), ob = make(left);
    ASSERT_TRUE(ob->takes_parameter_gradients());
    left.leave_grads_to_autograd();
    EXPECT_FALSE(left.has_grad_buffer()) << "no flat gradient is held";
    for (const auto& [name, p] : b.params) EXPECT_FALSE(p.grad().defined()) << name;
    at::manual_seed(3);
    for (int window = 0; window < 3; ++window) {
      two_micro_steps(a, b, window);
      if (window == 0) {  // autograd's own tensors, not views of one buffer
        EXPECT_FALSE(b.params[0].second.grad().storage().is_alias_of(b.params[1].second.grad().storage()));
        EXPECT_FALSE(b.params[0].second.grad().storage().is_alias_of(left.data().storage()));
      }
      flat.ensure_grad_views();
      left.ensure_grad_views();
      const std::vector<at::Tensor> ga = flat.slot_grads(), gb = left.slot_grads();
      ASSERT_EQ(gb.size(), 3u);
      for (size_t i = 0; i < 3; ++i) EXPECT_TRUE(at::equal(ga[i], gb[i])) << "gradient " << i << ", window " << window;
      oa->step();
      ob->step();
      EXPECT_TRUE(at::allclose(flat.data(), left.data(), 1e-6, 1e-8)) << "window " << window;
      flat.zero_grad();
      left.zero_grad();
      for (const auto& [name, p] : b.params) EXPECT_FALSE(p.grad().defined()) << name << ": freed, as zero_grad(set_to_none=True)";
    }
    for (const auto& [name, t] : oa->state_tensors()) EXPECT_TRUE(at::allclose(t, ob->state_tensors().at(name), 1e-6, 1e-12)) << name;
  }
}

// torch.optim.AdamW's formula per tensor vs runner's AdamW over the flat buffer: the
// separate-ops path (adamw_torch) and PyTorch's fused kernel (adamw_torch_fused).
void expect_adamw_matches_reference(bool fused) {
  Model model, ref_model;
  FlatParams flat(model.params, {0, 1, 0}, 2);
  auto opt = make_adamw(flat, {{1e-2, 0.1}, {1e-2, 0.0}}, {0.9, 0.99, 1e-8, fused});
  std::vector<at::Tensor> p, m, v;
  for (auto& [n, t] : ref_model.params) {
    p.push_back(t);
    m.push_back(at::zeros_like(t));
    v.push_back(at::zeros_like(t));
  }
  for (int step = 1; step <= 5; ++step) {
    auto x = at::randn({8, 3});
    flat.zero_grad();
    model.loss(x).backward();
    for (auto& t : p) t.mutable_grad() = at::Tensor();
    ref_model.loss(x).backward();
    opt->step();
    std::vector<at::Tensor> g;
    for (auto& t : p) g.push_back(t.grad());
    c10::NoGradGuard ng;
    reference_adamw(p, g, m, v, step, 1e-2, {0.1, 0.0, 0.1}, 0.9, 0.99, 1e-8);
  }
  for (size_t i = 0; i < p.size(); ++i)
    EXPECT_TRUE(at::allclose(model.params[i].second, p[i], 1e-6, 1e-7)) << model.params[i].first << (fused ? " (fused)" : "");
}

TEST(AdamW, MatchesTorchAdamWPerTensor) { expect_adamw_matches_reference(/*fused=*/false); }
TEST(AdamW, FusedKernelMatchesTorchAdamWPerTensor) { expect_adamw_matches_reference(/*fused=*/true); }

TEST(AdamW, FusedResumesWhereItStopped) {
  // The fused kernel reads the step count from a tensor: after a resume it must continue
  // from the checkpoint's step (bias corrections), exactly like an uninterrupted run.
  Model a, b;
  FlatParams fa(a.params, {0, 0, 0}, 1), fb(b.params, {0, 0, 0}, 1);
  auto oa = make_adamw(fa, {{1e-2, 0.1}}, {0.9, 0.999, 1e-8, true});
  auto ob = make_adamw(fb, {{1e-2, 0.1}}, {0.9, 0.999, 1e-8, true});
  std::vector<at::Tensor> xs;
  for (int i = 0; i < 6; ++i) xs.push_back(at::randn({8, 3}));
  for (int i = 0; i < 3; ++i) {
    fa.zero_grad(), a.loss(xs[i]).backward(), oa->step();
    fb.zero_grad(), b.loss(xs[i]).backward(), ob->step();
  }
  std::map<std::string, at::Tensor> saved;
  for (auto& [k, t] : ob->state_tensors()) saved[k] = t.clone();
  const int64_t step = ob->step_count();
  ob = make_adamw(fb, {{1e-2, 0.1}}, {0.9, 0.999, 1e-8, true});  // a fresh optimizer, as on resume
  ob->load_state_tensors(saved);
  ob->set_step_count(step);
  for (int i = 3; i < 6; ++i) {
    fa.zero_grad(), a.loss(xs[i]).backward(), oa->step();
    fb.zero_grad(), b.loss(xs[i]).backward(), ob->step();
  }
  EXPECT_TRUE(fa.data().equal(fb.data()));
}

TEST(SGD, MomentumNesterovAndCoupledWeightDecay) {
  Model model, ref_model;
  FlatParams flat(model.params, {0, 0, 0}, 1);
  auto opt = make_sgd(flat, {{0.1, 0.01}}, {0.9, 0.0, true});
  std::vector<at::Tensor> buf(3);
  for (int step = 0; step < 4; ++step) {
    auto x = at::randn({8, 3});
    flat.zero_grad();
    model.loss(x).backward();
    for (auto& [n, t] : ref_model.params) t.mutable_grad() = at::Tensor();
    ref_model.loss(x).backward();
    opt->step();
    c10::NoGradGuard ng;
    for (size_t i = 0; i < 3; ++i) {
      auto& t = ref_model.params[i].second;
      auto d = t.grad() + 0.01 * t;
      buf[i] = step == 0 ? d.clone() : buf[i] * 0.9 + d;
      t.sub_(0.1 * (d + 0.9 * buf[i]));
    }
  }
  for (size_t i = 0; i < 3; ++i) EXPECT_TRUE(at::allclose(model.params[i].second, ref_model.params[i].second, 1e-6, 1e-7));
}

// SGD runs PyTorch's fused kernel: every form of the update (momentum with and without
// Nesterov, dampening, none; coupled weight decay; groups of their own lr and decay) against
// torch.optim.SGD's single-tensor rule in plain ATen ops, over steps that start the momentum.
TEST(SGD, FusedKernelEqualsTheAtenUpdateRule) {
  struct Case { double momentum, dampening; bool nesterov; };
  for (const Case c : {Case{0.9, 0.0, true}, Case{0.9, 0.1, false}, Case{0.0, 0.0, false}}) {
    SCOPED_TRACE("momentum " + std::to_string(c.momentum) + " dampening " + std::to_string(c.dampening) + " nesterov " + std::to_string(c.nesterov));
    Model model;
    std::vector<at::Tensor> ref;
    for (auto& [n, t] : model.params) ref.push_back(t.detach().clone());
    FlatParams flat(model.params, {0, 1, 0}, 2);  // group 0: w1, w2; group 1: b1
    const std::vector<std::pair<double, double>> lr_wd = {{0.1, 0.01}, {0.05, 0.0}};
    auto opt = make_sgd(flat, {{lr_wd[0].first, lr_wd[0].second}, {lr_wd[1].first, lr_wd[1].second}}, {c.momentum, c.dampening, c.nesterov});
    std::vector<at::Tensor> buf(3);
    for (int step = 0; step < 4; ++step) {
      flat.zero_grad();
      model.loss(at::randn({8, 3})).backward();
      std::vector<at::Tensor> grads;
      for (auto& [n, t] : model.params) grads.push_back(t.grad().clone());
      opt->step();
      c10::NoGradGuard ng;
      for (size_t i = 0; i < 3; ++i) {
        const auto [lr, wd] = lr_wd[i == 1 ? 1 : 0];
        at::Tensor d = grads[i].add(ref[i], wd);
        if (c.momentum != 0) {
          buf[i] = step == 0 ? d.clone() : buf[i].mul(c.momentum).add_(d, 1 - c.dampening);
          d = c.nesterov ? d.add(buf[i], c.momentum) : buf[i];
        }
        ref[i].add_(d, -lr);
        EXPECT_TRUE(at::allclose(model.params[i].second, ref[i], 1e-6, 1e-7)) << model.params[i].first << " at step " << step;
      }
    }
    if (c.momentum != 0) EXPECT_TRUE(at::allclose(opt->state_tensors().at("momentum_buffer").narrow(0, 0, 12), buf[0].reshape(-1), 1e-6, 1e-7));
    else EXPECT_TRUE(opt->state_tensors().empty());
  }
}

TEST(AdamW, StateRoundTrip) {
  Model model;
  FlatParams flat(model.params, {0, 0, 0}, 1);
  auto opt = make_adamw(flat, {{1e-3, 0.0}}, {});
  model.loss(at::randn({4, 3})).backward();
  opt->step();
  auto state = opt->state_tensors();
  auto fresh = make_adamw(flat, {{1e-3, 0.0}}, {});
  std::map<std::string, at::Tensor> copy;
  for (auto& [k, t] : state) copy[k] = t.clone();
  fresh->load_state_tensors(copy);
  EXPECT_TRUE(fresh->state_tensors().at("exp_avg").equal(state.at("exp_avg")));
  EXPECT_THROW(fresh->load_state_tensors({{"exp_avg", at::zeros({3})}, {"exp_avg_sq", at::zeros({3})}}), CheckpointError);
}

TEST(FlatParams, MixedDtypesAreRejected) {
  std::vector<std::pair<std::string, at::Tensor>> params{{"a", at::zeros({2}).requires_grad_()},
                                                         {"b", at::zeros({2}, at::kDouble).requires_grad_()}};
  EXPECT_THROW(FlatParams(params, {0, 0}, 1), RecipeError);
}

TEST(AdamW, DeviceScalarsGiveTheDoubleLrKernelsNumbers) {
  // cuda_graphs' form of the fused update (step count and learning rates read from tensors,
  // filled by begin_step): on the CPU the kernel reads a double, so it must equal the plain
  // fused step bit for bit, through learning-rate changes, per-group weight decay and a
  // resume that sets the step count.
  Model a, b;
  FlatParams fa(a.params, {0, 1, 0}, 2), fb(b.params, {0, 1, 0}, 2);
  auto plain = make_adamw(fa, {{1e-2, 0.1}, {1e-2, 0.0}}, {0.9, 0.99, 1e-8, true});
  auto scalars = make_adamw(fb, {{1e-2, 0.1}, {1e-2, 0.0}}, {0.9, 0.99, 1e-8, true});
  ASSERT_TRUE(scalars->capturable());
  EXPECT_FALSE(make_adamw(fa, {{1e-2, 0.1}, {1e-2, 0.0}}, {0.9, 0.99, 1e-8, false})->capturable());
  scalars->use_device_scalars();
  const auto x = at::randn({5, 3});
  for (int step = 1; step <= 6; ++step) {
    const double lr = 1e-2 / step;  // a schedule
    for (size_t g = 0; g < 2; ++g) {
      plain->set_lr(g, lr * (g == 1 ? 0.5 : 1.0));
      scalars->set_lr(g, lr * (g == 1 ? 0.5 : 1.0));
    }
    fa.zero_grad();
    fb.zero_grad();
    a.loss(x).backward();
    b.loss(x).backward();
    plain->step();
    if (step % 2) {
      scalars->step();  // the eager form: begin_step + device_step
    } else {
      scalars->begin_step();
      scalars->device_step();
    }
    ASSERT_TRUE(fa.data().equal(fb.data())) << "step " << step;
  }
  EXPECT_EQ(scalars->step_count(), 6);
  plain->set_step_count(20), scalars->set_step_count(20);  // a resumed run
  fa.zero_grad(), fb.zero_grad();
  a.loss(x).backward(), b.loss(x).backward();
  plain->step(), scalars->step();
  EXPECT_TRUE(fa.data().equal(fb.data()));
  for (const auto& [name, t] : plain->state_tensors()) EXPECT_TRUE(t.equal(scalars->state_tensors().at(name))) << name;
}

// Clipping folded into the fused kernels' pass (Optimizer::set_gradient_divisor) against
// torch.nn.utils.clip_grad_norm_'s own scaling pass before the step: AdamW and SGD, over
// the flat buffer, over autograd's own gradients, and AdamW's device-scalar step. The
// gradients end clipped either way (on_optimizer_step may read them), and a divisor serves
// one step only.
TEST(Optimizers, ClippingFoldedIntoTheFusedStepEqualsClippingFirst) {
  struct Case { const char* name; bool sgd, autograd_grads, device_scalars; };
  for (const Case c : {Case{"adamw", false, false, false}, Case{"adamw, autograd's gradients", false, true, false},
                       Case{"adamw, device scalars", false, false, true}, Case{"sgd", true, false, false},
                       Case{"sgd, autograd's gradients", true, true, false}}) {
    SCOPED_TRACE(c.name);
    Model a, b;
    FlatParams fa(a.params, {0, 1, 0}, 2), fb(b.params, {0, 1, 0}, 2);
    const std::vector<GroupOptions> groups = {{0.05, 0.1}, {0.02, 0.0}};
    auto make = [&](FlatParams& f) { return c.sgd ? make_sgd(f, groups, {0.9, 0.0, false}) : make_adamw(f, groups, {0.9, 0.999, 1e-8, true}); };
    auto first = make(fa), folded = make(fb);
    ASSERT_TRUE(folded->folds_gradient_divisor());
    if (c.autograd_grads) {
      fa.leave_grads_to_autograd();
      fb.leave_grads_to_autograd();
    }
    if (c.device_scalars) {
      first->use_device_scalars();
      folded->use_device_scalars();
    }
    at::manual_seed(11);
    for (int step = 0; step < 6; ++step) {
      const at::Tensor x = at::randn({8, 3}) * 20;  // gradient norms of a few units
      (a.loss(x) * 10).backward();
      (b.loss(x) * 10).backward();
      fa.ensure_grad_views();
      fb.ensure_grad_views();
      const std::vector<at::Tensor> ga = fa.slot_grads(), gb = fb.slot_grads();
      const bool clip = step % 2 == 0;  // odd steps: no divisor, so none may linger
      if (clip) {
        c10::NoGradGuard ng;
        const at::Tensor norm = at::linalg_vector_norm(at::stack(at::_foreach_norm(ga)), 2);
        const at::Tensor coef = at::full({}, 0.5, norm.options()).div_(norm + 1e-6).clamp_max_(1.0);
        ASSERT_LT(coef.item<double>(), 0.9) << "the clip must act";
        at::_foreach_mul_(ga, coef);
        folded->set_gradient_divisor(coef.reciprocal());
      }
      first->step();
      folded->step();
      for (size_t i = 0; i < ga.size(); ++i)
        EXPECT_TRUE(at::allclose(gb[i], ga[i], 1e-6, 1e-9)) << "gradient " << i << " after step " << step << ": clipped by the step";
      EXPECT_TRUE(at::allclose(fb.data(), fa.data(), 1e-6, 1e-8)) << "step " << step;
      fa.zero_grad();
      fb.zero_grad();
    }
  }
  // An optimizer whose step has no such pass refuses a divisor rather than ignore it.
  Model m;
  FlatParams f(m.params, {0, 0, 0}, 1);
  std::vector<std::unique_ptr<Optimizer>> plain;
  plain.push_back(make_adamw(f, {{1e-3, 0.0}}, {0.9, 0.999, 1e-8, false}));
  plain.push_back(make_adagrad(f, {{1e-3, 0.0}}, {}));
  for (const auto& opt : plain) {
    EXPECT_FALSE(opt->folds_gradient_divisor()) << opt->name();
    EXPECT_THROW(opt->set_gradient_divisor(at::ones({})), std::logic_error) << opt->name();
  }
  auto adamw = make_adamw(f, {{1e-3, 0.0}}, {0.9, 0.999, 1e-8, true});
  EXPECT_THROW(adamw->set_gradient_divisor(at::ones({}, at::kDouble)), std::logic_error) << "the kernels read a float";
  EXPECT_THROW(adamw->set_gradient_divisor(at::ones({1})), std::logic_error);
  EXPECT_NO_THROW(adamw->set_gradient_divisor(at::ones({})));
}
