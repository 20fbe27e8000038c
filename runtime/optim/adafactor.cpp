#include <c10/core/GradMode.h>
#include <algorithm>
#include <cmath>

#include "runtime/core/errors.h"
#include "runtime/optim/optimizer.h"

namespace runner::optim {

namespace {

// transformers.optimization.Adafactor, one parameter at a time (the factored statistics
// depend on each parameter's shape, so whole-range ops do not apply):
//   ρ_t = 1 − t^decay_rate;  s = g² + ε1
//   ≥2-D: R ← ρ·R + (1−ρ)·mean_{-1}(s),  C ← ρ·C + (1−ρ)·mean_{-2}(s),
//         u = rsqrt(R / mean_{-1}(R))[..., None] · rsqrt(C)[..., None, :] · g
//   else: V ← ρ·V + (1−ρ)·s,  u = rsqrt(V) · g
//   u ← u / max(1, rms(u)/clip);  u ← lr·u;  with β1: m ← β1·m + (1−β1)·u, u = m
//   p ← p − wd·lr·p − u   (decoupled weight decay)
// lr is the group's lr, or min(1e-6·t if warmup_init else 1e-2, 1/sqrt(t)) with
// relative_step, times max(ε2, rms(p)) with scale_parameter (rms of p before this step).
//
// State layout (slots in FlatParams order, i.e. the order of the flat buffers):
//   exp_avg          (N) like the flat parameters; only when beta1 is set
//   exp_avg_sq_row   concatenation over ≥2-D slots of shape[:-1] (row-major), numel Π shape[:-1]
//   exp_avg_sq_col   concatenation over ≥2-D slots of shape[:-2] + shape[-1:]
//   exp_avg_sq       concatenation over 0/1-D slots of their numel values
// A key is present only when at least one slot uses it. Half/bfloat16 parameters are updated
// in float32 with float32 state, as transformers does.
class Adafactor : public Optimizer {
 public:
  Adafactor(FlatParams& params, std::vector<GroupOptions> groups, AdafactorOptions o) : Optimizer(params, std::move(groups)), o_(o) {
    const at::ScalarType dt = params.data().scalar_type();
    low_precision_ = dt == at::kHalf || dt == at::kBFloat16;
    const auto opts = params.data().options().dtype(low_precision_ ? at::kFloat : dt);
    int64_t rows = 0, cols = 0, full = 0;
    bool any_factored = false, any_full = false;
    for (const ParamSlot& s : params.slots()) {
      (factored(s) ? any_factored : any_full) = true;
      if (factored(s)) {
        rows += numel_of(s.shape, 0, s.shape.size() - 1);
        cols += numel_of(s.shape, 0, s.shape.size() - 2) * s.shape.back();
      } else {
        full += s.numel;
      }
    }
    if (any_factored) {
      row_ = at::zeros({rows}, opts);
      col_ = at::zeros({cols}, opts);
    }
    if (any_full) sq_ = at::zeros({full}, opts);
    if (o_.beta1) avg_ = at::zeros({params.numel()}, opts);
    // Per-slot views into the flat state buffers.
    rows = cols = full = 0;
    for (const ParamSlot& s : params.slots()) {
      SlotState st;
      if (factored(s)) {
        std::vector<int64_t> rshape(s.shape.begin(), s.shape.end() - 1);
        std::vector<int64_t> cshape(s.shape.begin(), s.shape.end() - 2);
        cshape.push_back(s.shape.back());
        const int64_t rn = numel_of(s.shape, 0, s.shape.size() - 1), cn = numel_of(cshape, 0, cshape.size());
        st.row = row_.narrow(0, rows, rn).view(rshape);
        st.col = col_.narrow(0, cols, cn).view(cshape);
        rows += rn;
        cols += cn;
      } else {
        st.sq = sq_.narrow(0, full, s.numel).view(s.shape);
        full += s.numel;
      }
      if (avg_.defined()) st.avg = avg_.narrow(0, s.offset, s.numel).view(s.shape);
      state_.push_back(std::move(st));
    }
  }
  std::string name() const override { return "adafactor"; }

  void step() override {
    c10::NoGradGuard no_grad;
    ++step_;
    const double t = static_cast<double>(step_);
    const double beta2t = 1.0 - std::pow(t, o_.decay_rate);
    double step_size = 0;  // relative_step's lr (replaces the group lr)
    if (o_.relative_step) step_size = std::min(o_.warmup_init ? 1e-6 * t : 1e-2, 1.0 / std::sqrt(t));
    const auto& slots = params_.slots();
    for (size_t i = 0; i < slots.size(); ++i) {
      const ParamSlot& s = slots[i];
      if (s.numel == 0) continue;  // rms of an empty tensor is 0/0
      SlotState& st = state_[i];
      const double wd = groups_.at(s.group).weight_decay;
      at::Tensor p = params_.data().narrow(0, s.offset, s.numel).view(s.shape);
      at::Tensor g = params_.grad().narrow(0, s.offset, s.numel).view(s.shape);
      at::Tensor p32 = low_precision_ ? p.to(at::kFloat) : p;
      if (low_precision_) g = g.to(at::kFloat);

      double lr = o_.relative_step ? step_size : groups_.at(s.group).lr;
      if (o_.scale_parameter) lr *= std::max(o_.eps2, rms(p32).item<double>());

      at::Tensor sq = g.square().add_(o_.eps1);
      at::Tensor u;
      if (st.row.defined()) {
        st.row.mul_(beta2t).add_(sq.mean(-1), 1.0 - beta2t);
        st.col.mul_(beta2t).add_(sq.mean(-2), 1.0 - beta2t);
        at::Tensor r_factor = (st.row / st.row.mean(-1, /*keepdim=*/true)).rsqrt_().unsqueeze(-1);
        at::Tensor c_factor = st.col.unsqueeze(-2).rsqrt();
        u = (r_factor * c_factor).mul_(g);
      } else {
        st.sq.mul_(beta2t).add_(sq, 1.0 - beta2t);
        u = st.sq.rsqrt().mul_(g);
      }
      // Kept as tensor ops (no host max) so a NaN rms propagates as it does in transformers.
      u.div_((rms(u) / o_.clip_threshold).clamp_min_(1.0));
      u.mul_(lr);
      if (o_.beta1) {
        st.avg.mul_(*o_.beta1).add_(u, 1.0 - *o_.beta1);
        u = st.avg;
      }
      if (wd != 0) p32.add_(p32, -wd * lr);
      p32.sub_(u);
      if (low_precision_) p.copy_(p32);
    }
  }

  std::map<std::string, at::Tensor> state_tensors() const override {
    std::map<std::string, at::Tensor> out;
    if (row_.defined()) {
      out["exp_avg_sq_row"] = row_;
      out["exp_avg_sq_col"] = col_;
    }
    if (sq_.defined()) out["exp_avg_sq"] = sq_;
    if (avg_.defined()) out["exp_avg"] = avg_;
    return out;
  }
  void load_state_tensors(const std::map<std::string, at::Tensor>& state) override {
    if (row_.defined()) {
      load_state_tensor(state, "exp_avg_sq_row", row_);
      load_state_tensor(state, "exp_avg_sq_col", col_);
    }
    if (sq_.defined()) load_state_tensor(state, "exp_avg_sq", sq_);
    if (avg_.defined()) load_state_tensor(state, "exp_avg", avg_);
  }

 private:
  struct SlotState {
    at::Tensor row, col, sq, avg;  // views into row_, col_, sq_, avg_ (undefined when unused)
  };
  static bool factored(const ParamSlot& s) { return s.shape.size() >= 2; }
  static int64_t numel_of(const std::vector<int64_t>& shape, size_t begin, size_t end) {
    int64_t n = 1;
    for (size_t d = begin; d < end; ++d) n *= shape[d];
    return n;
  }
  static at::Tensor rms(const at::Tensor& t) { return t.norm() / std::sqrt(static_cast<double>(t.numel())); }

  AdafactorOptions o_;
  bool low_precision_ = false;
  at::Tensor row_, col_, sq_, avg_;
  std::vector<SlotState> state_;  // one per FlatParams slot
};

}  // namespace

std::unique_ptr<Optimizer> make_adafactor(FlatParams& params, std::vector<GroupOptions> groups, AdafactorOptions options) {
  // transformers raises this one; the others guard against a division by zero or a
  // moving average that diverges.
  if (options.warmup_init && !options.relative_step) throw ArgumentError("args.optim_args: warmup_init=True requires relative_step=True");
  if (!(options.clip_threshold > 0)) throw ArgumentError("args.optim_args: clip_threshold must be > 0");
  if (options.beta1 && !(*options.beta1 >= 0 && *options.beta1 <= 1)) throw ArgumentError("args.optim_args: beta1 must be in [0, 1]");
  return std::make_unique<Adafactor>(params, std::move(groups), options);
}

}  // namespace runner::optim
