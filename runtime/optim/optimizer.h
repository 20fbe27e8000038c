// Optimizers over FlatParams: each parameter group is one contiguous range, updated with a
// few whole-range vector ops. Semantics follow torch.optim (AdamW, SGD, Adagrad, RMSprop)
// and transformers' Adafactor exactly, so a run here matches the same run in PyTorch step
// for step.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/optim/flat_params.h"

namespace runner::optim {

struct GroupOptions {
  double lr = 1e-3;
  double weight_decay = 0.0;
};

class Optimizer {
 public:
  Optimizer(FlatParams& params, std::vector<GroupOptions> groups);
  virtual ~Optimizer() = default;
  virtual std::string name() const = 0;
  virtual void step() = 0;

  // Whole-step CUDA graphs (runtime/train/step_graph.h) replay a captured update, so every
  // value that changes from step to step must come from device memory, not be baked into the
  // graph. A capturable optimizer, once use_device_scalars() is on, runs every step (captured
  // or eager, so both give the same numbers) as begin_step(): the step count and each group's
  // learning rate written into device tensors (host → device, outside the graph), then
  // device_step(): the update reading only those tensors (what the graph holds).
  virtual bool capturable() const { return false; }
  // Whether step() can read each parameter's own gradient when FlatParams leaves them to
  // autograd (FlatParams::leave_grads_to_autograd): PyTorch's fused kernels take tensor lists.
  virtual bool takes_parameter_gradients() const { return false; }
  // Clipping folded into the update, as torch's fused kernels do AMP's unscaling (their
  // grad_scale): the next step() or device_step() divides each gradient it reads by
  // `divisor`, a () fp32 tensor on the gradients' device, and writes the quotient back, so
  // the gradients end as clip_grad_norm_'s own pass would have left them. What it saves is
  // that pass: a read and a write of every gradient. Set before each step; used once.
  virtual bool folds_gradient_divisor() const { return false; }
  void set_gradient_divisor(at::Tensor divisor) {
    if (!folds_gradient_divisor()) throw std::logic_error(name() + ": cannot fold a gradient divisor into its step");
    if (!divisor.defined() || divisor.dim() != 0 || divisor.scalar_type() != at::kFloat)
      throw std::logic_error(name() + ": the gradient divisor must be a 0-dim float32 tensor");
    divisor_ = std::move(divisor);
  }
  virtual void use_device_scalars() {}
  virtual void begin_step() {}
  virtual void device_step() {}

  // Learning rate of every group (schedulers scale each group's base lr).
  const std::vector<GroupOptions>& groups() const { return groups_; }
  void set_lr(size_t group, double lr) { groups_.at(group).lr = lr; }
  double lr(size_t group = 0) const { return groups_.at(group).lr; }

  // State for checkpoints: flat tensors by name ("exp_avg", ...) plus a step count.
  virtual std::map<std::string, at::Tensor> state_tensors() const = 0;
  virtual void load_state_tensors(const std::map<std::string, at::Tensor>& state) = 0;
  int64_t step_count() const { return step_; }
  FlatParams& params() const { return params_; }  // the values this optimizer updates
  void set_step_count(int64_t s) { step_ = s; }

 protected:
  // One parameter group's range of the flat buffers, for step(): its values, its raw
  // gradient, its learning rate and weight decay. `of(state)` is the same range of a flat
  // state tensor.
  struct GroupSlice {
    at::Tensor param, grad;
    double lr = 0.0, weight_decay = 0.0;
    int64_t begin = 0, size = 0;
    at::Tensor of(const at::Tensor& flat) const { return flat.narrow(0, begin, size); }
    // torch.optim's coupled (L2) weight decay: grad + wd·param, out of place, so the flat
    // gradient stays the raw one.
    at::Tensor l2_grad() const { return weight_decay != 0 ? grad.add(param, weight_decay) : grad; }
  };
  // f(slice) for every group with parameters, in order.
  template <class F>
  void for_each_group(F&& f) const {
    for (size_t g = 0; g < groups_.size(); ++g) {
      const GroupRange r = params_.groups()[g];
      if (r.size() == 0) continue;
      f(GroupSlice{params_.data().narrow(0, r.begin, r.size()), params_.grad().narrow(0, r.begin, r.size()), groups_[g].lr,
                   groups_[g].weight_decay, r.begin, r.size()});
    }
  }

  // One parameter group as the tensor lists PyTorch's fused kernels take: its range of the
  // flat buffers (one tensor each) or, when FlatParams leaves the gradients to autograd, one
  // tensor per parameter. `of(state)` is a flat state tensor's matching list.
  struct GroupLists {
    std::vector<at::Tensor> params, grads;
    double lr = 0.0, weight_decay = 0.0;
    std::function<std::vector<at::Tensor>(const at::Tensor&)> of;
  };
  // f(lists) for every group with parameters, in order.
  template <class F>
  void for_each_group_lists(F&& f) const {
    for (size_t g = 0; g < groups_.size(); ++g) {
      const GroupRange r = params_.groups()[g];
      if (r.size() == 0) continue;
      GroupLists l{{}, {}, groups_[g].lr, groups_[g].weight_decay, {}};
      if (params_.leaves_grads_to_autograd()) {
        const int group = static_cast<int>(g);
        l.of = [this, group](const at::Tensor& flat) { return params_.slot_views(flat, group); };
        l.grads = params_.slot_grads(group);
      } else {
        l.of = [r](const at::Tensor& flat) { return std::vector<at::Tensor>{flat.narrow(0, r.begin, r.size())}; };
        l.grads = l.of(params_.grad());
      }
      l.params = l.of(params_.data());
      f(l);
    }
  }

  // The divisor set for this step, if any (undefined: none); the next step needs a new one.
  std::optional<at::Tensor> take_gradient_divisor() {
    if (!divisor_.defined()) return std::nullopt;
    return std::exchange(divisor_, at::Tensor());
  }

  // dst ← state[name] (any shape with dst's numel); CheckpointError when missing or mis-sized.
  static void load_state_tensor(const std::map<std::string, at::Tensor>& state, const std::string& name, at::Tensor& dst);

  FlatParams& params_;
  std::vector<GroupOptions> groups_;
  int64_t step_ = 0;

 private:
  at::Tensor divisor_;  // set_gradient_divisor, until the step takes it
};

struct AdamWOptions {
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  // PyTorch's fused kernel (torch.optim.AdamW(fused=True), HF's adamw_torch_fused): one
  // pass over each group's range per step, no temporaries, on the CPU and on CUDA.
  bool fused = false;
};
std::unique_ptr<Optimizer> make_adamw(FlatParams& params, std::vector<GroupOptions> groups, AdamWOptions options);

struct SGDOptions {
  double momentum = 0.0, dampening = 0.0;
  bool nesterov = false;
};
std::unique_ptr<Optimizer> make_sgd(FlatParams& params, std::vector<GroupOptions> groups, SGDOptions options);

struct AdagradOptions {
  double lr_decay = 0.0, initial_accumulator_value = 0.0, eps = 1e-10;
};
std::unique_ptr<Optimizer> make_adagrad(FlatParams& params, std::vector<GroupOptions> groups, AdagradOptions options);

struct RMSpropOptions {
  double alpha = 0.99, eps = 1e-8, momentum = 0.0;
  bool centered = false;
};
std::unique_ptr<Optimizer> make_rmsprop(FlatParams& params, std::vector<GroupOptions> groups, RMSpropOptions options);

// Defaults are what the HF Trainer passes for optim="adafactor" (scale_parameter=False,
// relative_step=False, lr = the group's lr), not the Adafactor class defaults.
struct AdafactorOptions {
  double eps1 = 1e-30, eps2 = 1e-3, clip_threshold = 1.0, decay_rate = -0.8;
  std::optional<double> beta1;  // first moment only when set
  bool scale_parameter = false, relative_step = false, warmup_init = false;
};
std::unique_ptr<Optimizer> make_adafactor(FlatParams& params, std::vector<GroupOptions> groups, AdafactorOptions options);

}  // namespace runner::optim
