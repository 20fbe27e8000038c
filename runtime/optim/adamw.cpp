#include <c10/core/GradMode.h>
#include <algorithm>
#include <cmath>

#include <ATen/ops/_fused_adamw.h>

#include "runtime/core/errors.h"
#include "runtime/optim/optimizer.h"

namespace runner::optim {

namespace {

// torch.optim.AdamW (single-tensor path), one range per group:
//   p ← p·(1 − lr·wd);  m ← β1·m + (1−β1)·g;  v ← β2·v + (1−β2)·g²
//   p ← p − lr/(1−β1^t) · m / (sqrt(v)/sqrt(1−β2^t) + ε)
class AdamW : public Optimizer {
 public:
  static constexpr int64_t kChunk = int64_t{1} << 22;  // 4M values, 16 MB of fp32

  AdamW(FlatParams& params, std::vector<GroupOptions> groups, AdamWOptions o) : Optimizer(params, std::move(groups)), o_(o) {
    exp_avg_ = at::zeros_like(params.data());
    exp_avg_sq_ = at::zeros_like(params.data());
    if (o_.fused) step_tensor_ = at::zeros({}, params.data().options().dtype(at::kFloat));
  }
  std::string name() const override { return "adamw"; }

  void step() override {
    c10::NoGradGuard no_grad;
    if (!lr_tensors_.empty()) {
      begin_step();
      return device_step();
    }
    ++step_;
    if (o_.fused) return fused_step();
    const double bc1 = 1.0 - std::pow(o_.beta1, static_cast<double>(step_));
    const double bc2_sqrt = std::sqrt(1.0 - std::pow(o_.beta2, static_cast<double>(step_)));
    for (size_t g = 0; g < groups_.size(); ++g) {
      const GroupRange r = params_.groups()[g];
      const double lr = groups_[g].lr, wd = groups_[g].weight_decay;
      // In chunks, so the one temporary (the denominator) stays small however large the
      // model: a full-size temporary would raise peak memory by 4 bytes per parameter.
      for (int64_t begin = r.begin; begin < r.end; begin += kChunk) {
        const int64_t n = std::min(kChunk, r.end - begin);
        at::Tensor p = params_.data().narrow(0, begin, n);
        at::Tensor grad = params_.grad().narrow(0, begin, n);
        at::Tensor m = exp_avg_.narrow(0, begin, n);
        at::Tensor v = exp_avg_sq_.narrow(0, begin, n);
        if (wd != 0) p.mul_(1.0 - lr * wd);
        m.mul_(o_.beta1).add_(grad, 1.0 - o_.beta1);
        v.mul_(o_.beta2).addcmul_(grad, grad, 1.0 - o_.beta2);
        at::Tensor denom = v.sqrt();
        denom.div_(bc2_sqrt).add_(o_.eps);
        p.addcdiv_(m, denom, -lr / bc1);
      }
    }
  }

  // The same update in PyTorch's fused kernel, one call per group (groups differ in lr and
  // weight decay), over the group's range or its parameters' own gradients
  // (for_each_group_lists). The kernel reads the step count from a tensor, which torch.optim
  // increments before the call; here it mirrors step_, so checkpoints need nothing new. One
  // step tensor serves every tensor of a list.
  void fused_step() {
    step_tensor_.fill_(static_cast<double>(step_));
    const std::optional<at::Tensor> divisor = take_gradient_divisor();
    for_each_group_lists([&](const GroupLists& l) {
      at::_fused_adamw_(l.params, l.grads, l.of(exp_avg_), l.of(exp_avg_sq_), {}, std::vector<at::Tensor>(l.params.size(), step_tensor_), l.lr,
                        o_.beta1, o_.beta2, l.weight_decay, o_.eps, /*amsgrad=*/false, /*maximize=*/false, divisor);
    });
  }

  // The fused kernel's tensor-lr form. On a GPU the kernel reads the learning rate as fp32
  // (torch.optim's capturable AdamW does the same); on the CPU it reads a double, so there
  // the result equals the double-lr kernel's bit for bit.
  bool capturable() const override { return o_.fused; }
  bool takes_parameter_gradients() const override { return o_.fused && lr_tensors_.empty(); }
  bool folds_gradient_divisor() const override { return o_.fused; }
  void use_device_scalars() override {
    if (!o_.fused || !lr_tensors_.empty()) return;
    const at::ScalarType type = params_.data().is_cuda() ? at::kFloat : at::kDouble;
    for (size_t g = 0; g < groups_.size(); ++g) lr_tensors_.push_back(at::zeros({}, params_.data().options().dtype(type)));
  }
  void begin_step() override {
    c10::NoGradGuard no_grad;
    ++step_;
    step_tensor_.fill_(static_cast<double>(step_));
    for (size_t g = 0; g < groups_.size(); ++g) lr_tensors_[g].fill_(groups_[g].lr);
  }
  void device_step() override {
    c10::NoGradGuard no_grad;
    if (params_.leaves_grads_to_autograd()) throw RecipeError("AdamW: a captured step reads the flat gradient, which this run left to autograd");
    const std::optional<at::Tensor> divisor = take_gradient_divisor();
    for (size_t g = 0; g < groups_.size(); ++g) {
      const GroupRange r = params_.groups()[g];
      if (r.size() == 0) continue;
      auto of = [&](const at::Tensor& flat) { return flat.narrow(0, r.begin, r.size()); };
      at::_fused_adamw_({of(params_.data())}, {of(params_.grad())}, {of(exp_avg_)}, {of(exp_avg_sq_)}, {}, {step_tensor_}, lr_tensors_[g],
                        o_.beta1, o_.beta2, groups_[g].weight_decay, o_.eps, /*amsgrad=*/false, /*maximize=*/false, divisor);
    }
  }

  std::map<std::string, at::Tensor> state_tensors() const override {
    return {{"exp_avg", exp_avg_}, {"exp_avg_sq", exp_avg_sq_}};
  }
  void load_state_tensors(const std::map<std::string, at::Tensor>& state) override {
    c10::NoGradGuard no_grad;
    for (auto [name, dst] : std::initializer_list<std::pair<const char*, at::Tensor*>>{{"exp_avg", &exp_avg_}, {"exp_avg_sq", &exp_avg_sq_}}) {
      auto it = state.find(name);
      if (it == state.end()) throw CheckpointError(std::string("optimizer state has no '") + name + "'");
      if (it->second.numel() != dst->numel())
        throw CheckpointError(std::string("optimizer state '") + name + "' has " + std::to_string(it->second.numel()) +
                              " values, the model has " + std::to_string(dst->numel()) + " parameters");
      dst->copy_(it->second.reshape(-1));
    }
  }

 private:
  AdamWOptions o_;
  at::Tensor exp_avg_, exp_avg_sq_;  // (N)
  at::Tensor step_tensor_;           // () fp32, fused only
  std::vector<at::Tensor> lr_tensors_;  // () per group, device scalars only (use_device_scalars)
};

}  // namespace

std::unique_ptr<Optimizer> make_adamw(FlatParams& params, std::vector<GroupOptions> groups, AdamWOptions options) {
  if (options.beta1 < 0 || options.beta1 >= 1) throw ArgumentError("args.adam_beta1: must be in [0, 1)");
  if (options.beta2 < 0 || options.beta2 >= 1) throw ArgumentError("args.adam_beta2: must be in [0, 1)");
  if (options.eps < 0) throw ArgumentError("args.adam_epsilon: must be >= 0");
  return std::make_unique<AdamW>(params, std::move(groups), options);
}

}  // namespace runner::optim
