#include "runtime/core/errors.h"
#include "runtime/optim/optimizer.h"
#include <ATen/ops/_fused_sgd.h>
#include <c10/core/GradMode.h>

namespace runner::optim {

namespace {

// torch.optim.SGD: coupled weight decay (added to the gradient), optional momentum with
// dampening and Nesterov. The momentum buffer starts as a copy of the first gradient.
// PyTorch's fused kernel (torch.optim.SGD(fused=True)) does it in one pass over parameter,
// gradient and momentum, on the CPU and the GPU; the ATen ops it replaces made four, each
// with a temporary (docs/performance.md, "Fused kernels"). Results equal those ops to a
// float rounding (the kernel contracts multiply-adds).
class SGD : public Optimizer {
 public:
  SGD(FlatParams& params, std::vector<GroupOptions> groups, SGDOptions o) : Optimizer(params, std::move(groups)), o_(o) {
    if (o_.momentum != 0) momentum_ = at::zeros_like(params.data());
  }
  std::string name() const override { return "sgd"; }
  bool takes_parameter_gradients() const override { return true; }
  bool folds_gradient_divisor() const override { return true; }

  void step() override {
    c10::NoGradGuard no_grad;
    const bool first = step_ == 0;
    ++step_;
    const std::optional<at::Tensor> divisor = take_gradient_divisor();
    for_each_group_lists([&](const GroupLists& l) {
      at::_fused_sgd_(l.params, l.grads, momentum_.defined() ? l.of(momentum_) : std::vector<at::Tensor>{}, l.weight_decay, o_.momentum, l.lr,
                      o_.dampening, o_.nesterov, /*maximize=*/false, /*is_first_step=*/first && momentum_.defined(), divisor);  // without momentum CUDA's kernel warns that it has no effect
    });
  }

  std::map<std::string, at::Tensor> state_tensors() const override {
    if (!momentum_.defined()) return {};
    return {{"momentum_buffer", momentum_}};
  }
  void load_state_tensors(const std::map<std::string, at::Tensor>& state) override {
    if (!momentum_.defined()) return;
    auto it = state.find("momentum_buffer");
    if (it == state.end()) throw CheckpointError("optimizer state has no 'momentum_buffer'");
    c10::NoGradGuard no_grad;
    momentum_.copy_(it->second.reshape(-1));
  }

 private:
  SGDOptions o_;
  at::Tensor momentum_;  // (N), only with momentum
};

}  // namespace

std::unique_ptr<Optimizer> make_sgd(FlatParams& params, std::vector<GroupOptions> groups, SGDOptions options) {
  if (options.nesterov && (options.momentum <= 0 || options.dampening != 0))
    throw ArgumentError("args.optim_args: nesterov needs momentum > 0 and dampening = 0");
  return std::make_unique<SGD>(params, std::move(groups), options);
}

}  // namespace runner::optim
