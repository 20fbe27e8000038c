#include "runtime/core/errors.h"
#include "runtime/optim/optimizer.h"
#include <c10/core/GradMode.h>

namespace runner::optim {

namespace {

// torch.optim.RMSprop (single-tensor path), one range per group:
//   g ← g + wd·p  (coupled);  v ← α·v + (1−α)·g²
//   centered: ḡ ← α·ḡ + (1−α)·g, avg = sqrt(v − ḡ²) + ε;  else avg = sqrt(v) + ε
//   momentum: b ← μ·b + g/avg, p ← p − lr·b;  else p ← p − lr·g/avg
class RMSprop : public Optimizer {
 public:
  RMSprop(FlatParams& params, std::vector<GroupOptions> groups, RMSpropOptions o) : Optimizer(params, std::move(groups)), o_(o) {
    square_avg_ = at::zeros_like(params.data());
    if (o_.centered) grad_avg_ = at::zeros_like(params.data());
    if (o_.momentum > 0) momentum_ = at::zeros_like(params.data());
  }
  std::string name() const override { return "rmsprop"; }

  void step() override {
    c10::NoGradGuard no_grad;
    ++step_;
    for_each_group([&](const GroupSlice& s) {
      const at::Tensor d = s.l2_grad();
      at::Tensor v = s.of(square_avg_);
      v.mul_(o_.alpha).addcmul_(d, d, 1.0 - o_.alpha);
      at::Tensor avg;
      if (o_.centered) {
        at::Tensor m = s.of(grad_avg_);
        m.mul_(o_.alpha).add_(d, 1.0 - o_.alpha);
        avg = v.addcmul(m, m, -1.0).sqrt_();
      } else {
        avg = v.sqrt();
      }
      avg.add_(o_.eps);
      if (o_.momentum > 0) {
        at::Tensor buf = s.of(momentum_);
        buf.mul_(o_.momentum).addcdiv_(d, avg);
        s.param.add_(buf, -s.lr);
      } else {
        s.param.addcdiv_(d, avg, -s.lr);
      }
    });
  }

  std::map<std::string, at::Tensor> state_tensors() const override {
    std::map<std::string, at::Tensor> out{{"square_avg", square_avg_}};
    if (grad_avg_.defined()) out["grad_avg"] = grad_avg_;
    if (momentum_.defined()) out["momentum_buffer"] = momentum_;
    return out;
  }
  void load_state_tensors(const std::map<std::string, at::Tensor>& state) override {
    load_state_tensor(state, "square_avg", square_avg_);
    if (grad_avg_.defined()) load_state_tensor(state, "grad_avg", grad_avg_);
    if (momentum_.defined()) load_state_tensor(state, "momentum_buffer", momentum_);
  }

 private:
  RMSpropOptions o_;
  at::Tensor square_avg_;  // (N)
  at::Tensor grad_avg_;    // (N), only when centered
  at::Tensor momentum_;    // (N), only with momentum > 0
};

}  // namespace

std::unique_ptr<Optimizer> make_rmsprop(FlatParams& params, std::vector<GroupOptions> groups, RMSpropOptions options) {
  // torch.optim.RMSprop's own checks.
  if (!(options.alpha >= 0)) throw ArgumentError("args.optim_args: alpha must be >= 0");
  if (!(options.eps >= 0)) throw ArgumentError("args.optim_args: eps must be >= 0");
  if (!(options.momentum >= 0)) throw ArgumentError("args.optim_args: momentum must be >= 0");
  return std::make_unique<RMSprop>(params, std::move(groups), options);
}

}  // namespace runner::optim
