// A small double-precision model shared by the optimizer tests: 2-D, 1-D and 3-D parameters
// (so Adafactor sees factored and unfactored tensors), a reference copy trained with
// per-tensor ATen ops, and a checkpoint-resume check that any optimizer must pass.
#pragma once
#include <gtest/gtest.h>

#include <functional>
#include <map>

#include "runtime/core/errors.h"
#include "runtime/optim/optimizer.h"

namespace optim_test {

using runner::optim::FlatParams;
using runner::optim::Optimizer;

// w1, w2, k in group 0 (weight decay), b1 in group 1: group 0 is not in model order.
inline const std::vector<int> kGroups{0, 1, 0, 0};

struct Model {
  std::vector<std::pair<std::string, at::Tensor>> params;
  Model() {
    at::manual_seed(7);
    const auto o = at::TensorOptions().dtype(at::kDouble);
    params = {{"w1", at::randn({4, 3}, o)}, {"b1", at::randn({4}, o)}, {"w2", at::randn({2, 4}, o)}, {"k", at::randn({2, 3, 4}, o)}};
    for (auto& [n, t] : params) t.requires_grad_();
  }
  at::Tensor loss(const at::Tensor& x) const {
    const at::Tensor& k = params[3].second;
    at::Tensor h = at::tanh(at::linear(x, params[0].second, params[1].second));
    return at::linear(h, params[2].second).pow(2).mean() + at::matmul(x, k.select(0, 0)).tanh().pow(2).mean() +
           at::matmul(x, k.select(0, 1)).sin().mean();
  }
  std::vector<at::Tensor> tensors() const {
    std::vector<at::Tensor> out;
    for (const auto& [n, t] : params) out.push_back(t);
    return out;
  }
};

inline at::Tensor input() { return at::randn({8, 3}, at::TensorOptions().dtype(at::kDouble)); }

// Gradients of the same batch for the flat model (into the flat buffer) and the reference.
inline void backward_both(const Model& flat_model, FlatParams& flat, const Model& ref, const at::Tensor& x) {
  flat.zero_grad();
  flat_model.loss(x).backward();
  for (const auto& [n, t] : ref.params) t.mutable_grad() = at::Tensor();
  ref.loss(x).backward();
}

// Same values, and the reference really moved away from the start (so a no-op fails).
inline void expect_same_params(const Model& got, const Model& want, double min_move = 1e-7) {
  const Model start;
  double moved = 0;
  for (size_t i = 0; i < got.params.size(); ++i) {
    const at::Tensor& g = got.params[i].second;
    const at::Tensor& w = want.params[i].second;
    EXPECT_TRUE(at::allclose(g, w, 1e-9, 1e-12))
        << got.params[i].first << ": max diff " << (g - w).abs().max().item<double>();
    moved = std::max(moved, (w - start.params[i].second).abs().max().item<double>());
  }
  EXPECT_GT(moved, min_move);
}

// Three steps straight vs two steps, checkpoint (cloned state + step count) into a fresh
// optimizer, one more step: the parameters must agree. Then mis-sized or missing state
// tensors must be CheckpointErrors.
inline void expect_resume_matches(const std::function<std::unique_ptr<Optimizer>(FlatParams&)>& make) {
  Model a, b;
  FlatParams fa(a.params, kGroups, 2), fb(b.params, kGroups, 2);
  auto oa = make(fa), ob = make(fb);
  const std::vector<at::Tensor> xs{input(), input(), input()};
  auto train = [](const Model& m, FlatParams& f, Optimizer& o, const at::Tensor& x) {
    f.zero_grad();
    m.loss(x).backward();
    o.step();
  };
  for (const auto& x : xs) train(a, fa, *oa, x);
  train(b, fb, *ob, xs[0]);
  train(b, fb, *ob, xs[1]);
  std::map<std::string, at::Tensor> saved;
  for (const auto& [k, t] : ob->state_tensors()) saved[k] = t.clone();
  ASSERT_FALSE(saved.empty());
  auto resumed = make(fb);
  resumed->load_state_tensors(saved);
  resumed->set_step_count(ob->step_count());
  train(b, fb, *resumed, xs[2]);
  for (size_t i = 0; i < a.params.size(); ++i)
    EXPECT_TRUE(at::allclose(a.params[i].second, b.params[i].second, 1e-12, 1e-14)) << a.params[i].first;
  for (const auto& [k, t] : saved) {
    auto bad = saved;
    bad[k] = at::zeros({t.numel() + 1}, t.options());
    EXPECT_THROW(resumed->load_state_tensors(bad), runner::CheckpointError) << k;
    bad.erase(k);
    EXPECT_THROW(resumed->load_state_tensors(bad), runner::CheckpointError) << k;
  }
}

}  // namespace optim_test
