#include "runtime/core/errors.h"
#include "runtime/optim/optimizer.h"
#include <c10/core/GradMode.h>

namespace runner::optim {

namespace {

// torch.optim.Adagrad (single-tensor path), one range per group:
//   g ← g + wd·p  (coupled);  clr = lr / (1 + (t−1)·lr_decay)
//   sum ← sum + g²;  p ← p − clr · g / (sqrt(sum) + ε)
class Adagrad : public Optimizer {
 public:
  Adagrad(FlatParams& params, std::vector<GroupOptions> groups, AdagradOptions o) : Optimizer(params, std::move(groups)), o_(o) {
    sum_ = at::full_like(params.data(), o_.initial_accumulator_value);
  }
  std::string name() const override { return "adagrad"; }

  void step() override {
    c10::NoGradGuard no_grad;
    ++step_;
    for_each_group([&](const GroupSlice& s) {
      const double clr = s.lr / (1.0 + static_cast<double>(step_ - 1) * o_.lr_decay);
      const at::Tensor d = s.l2_grad();
      at::Tensor sum = s.of(sum_);
      sum.addcmul_(d, d);
      s.param.addcdiv_(d, sum.sqrt().add_(o_.eps), -clr);
    });
  }

  std::map<std::string, at::Tensor> state_tensors() const override { return {{"sum", sum_}}; }
  void load_state_tensors(const std::map<std::string, at::Tensor>& state) override { load_state_tensor(state, "sum", sum_); }

 private:
  AdagradOptions o_;
  at::Tensor sum_;  // (N)
};

}  // namespace

std::unique_ptr<Optimizer> make_adagrad(FlatParams& params, std::vector<GroupOptions> groups, AdagradOptions options) {
  // torch.optim.Adagrad's own checks.
  if (!(options.lr_decay >= 0)) throw ArgumentError("args.optim_args: lr_decay must be >= 0");
  if (!(options.initial_accumulator_value >= 0)) throw ArgumentError("args.optim_args: initial_accumulator_value must be >= 0");
  if (!(options.eps >= 0)) throw ArgumentError("args.optim_args: eps must be >= 0");
  return std::make_unique<Adagrad>(params, std::move(groups), options);
}

}  // namespace runner::optim
