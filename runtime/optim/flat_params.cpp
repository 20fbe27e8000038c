#include "runtime/optim/flat_params.h"

#include <algorithm>

#include <c10/core/GradMode.h>
#include <torch/csrc/autograd/utils/lambda_post_hook.h>

#include "runtime/core/errors.h"
#include "runtime/optim/grad_accumulator.h"

namespace runner::optim {

FlatParams::FlatParams(const std::vector<std::pair<std::string, at::Tensor>>& params, const std::vector<int>& group_of,
                       int num_groups, bool grad_buffer, bool data_buffer, const Place& place, std::optional<at::Device> device) {
  if (params.empty()) throw RecipeError("the model has no trainable parameters");
  const at::ScalarType dtype = params.front().second.scalar_type();
  int64_t total = 0;
  for (const auto& [name, p] : params) {
    if (p.scalar_type() != dtype)
      throw RecipeError("parameter '" + name + "' is " + c10::toString(p.scalar_type()) + " but '" + params.front().first + "' is " +
                        c10::toString(dtype) + "; all trainable parameters must share one dtype");
    total += p.numel();
  }
  auto opts = params.front().second.options().requires_grad(false);
  if (device) opts = opts.device(*device);
  numel_ = total;
  if (!data_buffer) grad_buffer = false;
  if (data_buffer) data_ = at::empty({total}, opts);
  if (grad_buffer) grad_ = at::zeros({total}, opts);
  groups_.assign(static_cast<size_t>(num_groups), {});
  int64_t offset = 0;
  c10::NoGradGuard no_grad;
  for (int g = 0; g < num_groups; ++g) {
    groups_[g].begin = offset;
    for (size_t i = 0; i < params.size(); ++i) {
      if (group_of[i] != g) continue;
      const at::Tensor& p = params[i].second;
      ParamSlot s{params[i].first, p, p.sizes().vec(), offset, p.numel(), g};
      if (!data_buffer) {
        offset += s.numel;
        slots_.push_back(std::move(s));
        continue;
      }
      at::Tensor view = data_.narrow(0, offset, s.numel).view(s.shape);
      if (place) {
        place(s.name, p, view);
      } else {
        view.copy_(p);
        p.set_data(view);
      }
      if (grad_buffer) p.mutable_grad() = grad_.narrow(0, offset, s.numel).view(s.shape);
      else p.mutable_grad() = at::Tensor();
      offset += s.numel;
      slots_.push_back(std::move(s));
    }
    groups_[g].end = offset;
  }
}

std::unique_ptr<FlatParams> FlatParams::shard_of(FlatParams& full, int64_t begin, int64_t end, at::Tensor grad) {
  if (begin < 0 || end < begin || end > full.numel()) throw RecipeError("FlatParams::shard_of: range out of bounds");
  if (grad.numel() != end - begin) throw RecipeError("FlatParams::shard_of: gradient has the wrong size");
  std::unique_ptr<FlatParams> s(new FlatParams());
  s->data_ = full.data_.narrow(0, begin, end - begin);
  s->numel_ = end - begin;
  s->grad_ = std::move(grad);
  for (const GroupRange& g : full.groups_) {
    const int64_t b = std::max(g.begin, begin), e = std::min(g.end, end);
    s->groups_.push_back(b < e ? GroupRange{b - begin, e - begin} : GroupRange{0, 0});
  }
  return s;
}

std::unique_ptr<FlatParams> FlatParams::over(at::Tensor data, at::Tensor grad, std::vector<GroupRange> groups) {
  if (grad.numel() != data.numel()) throw RecipeError("FlatParams::over: gradient and data sizes differ");
  std::unique_ptr<FlatParams> s(new FlatParams());
  s->numel_ = data.numel();
  s->data_ = std::move(data);
  s->grad_ = std::move(grad);
  s->groups_ = std::move(groups);
  return s;
}

void FlatParams::zero_grad() {
  if (grad_.defined() && accumulators_.empty()) {
    grad_.zero_();
    return;
  }
  for (auto& s : slots_) s.param.mutable_grad() = at::Tensor();
}

void FlatParams::ensure_grad_views() {
  if (autograd_grads_) {
    c10::NoGradGuard no_grad;
    for (auto& s : slots_) {
      at::Tensor& g = s.param.mutable_grad();
      if (!g.defined()) g = at::zeros_like(s.param);
      else if (g.is_sparse()) g = g.to_dense();
      else if (g.requires_grad() || !g.is_contiguous()) g = g.detach().contiguous();  // create_graph's, or a hook's
    }
    return;
  }
  if (!grad_.defined()) return;
  // First-write mode: slots no gradient reached hold the last window's values.
  const bool stale = !accumulators_.empty();
  for (auto& s : slots_) {
    at::Tensor& g = s.param.mutable_grad();
    at::Tensor view = grad_.narrow(0, s.offset, s.numel);
    if (!g.defined() || g.data_ptr() != view.data_ptr()) {
      c10::NoGradGuard no_grad;
      if (g.defined()) view.copy_(g.reshape(-1));
      else if (stale) view.zero_();
      g = view.view(s.shape);
    }
  }
}

void FlatParams::write_grads_on_first_accumulation() {
  if (!grad_.defined() || !accumulators_.empty()) return;
  for (const auto& s : slots_) {
    std::shared_ptr<torch::autograd::Node> node = grad_accumulator(s.param);
    if (!node) throw RecipeError("parameter '" + s.name + "' is not a leaf that requires grad");
    const uintptr_t key = node->add_post_hook(std::make_unique<torch::autograd::utils::LambdaPostHook>(
        [param = s.param, slot = grad_.narrow(0, s.offset, s.numel).view(s.shape)](const torch::autograd::variable_list& outputs,
                                                                                   const torch::autograd::variable_list&) mutable {
          at::Tensor& g = param.mutable_grad();
          // Already the slot (a later micro-step added in place), or a backward with
          // create_graph, whose gradient keeps its graph until ensure_grad_views copies it.
          if (c10::GradMode::is_enabled() || (g.defined() && g.data_ptr() == slot.data_ptr())) return outputs;
          if (!g.defined()) {  // reached without a gradient (a custom node's undefined one): zero, as DDP's reducer makes it
            slot.zero_();
            g = slot;
            return outputs;
          }
          slot.copy_(g.is_sparse() ? g.to_dense() : g);
          g = slot;  // autograd's tensor is freed here: one parameter's gradient at a time
          return outputs;
        }));
    accumulators_.emplace_back(std::move(node), key);
  }
  zero_grad();
}

void FlatParams::leave_grads_to_autograd() {
  if (autograd_grads_) return;
  if (!data_.defined() || !accumulators_.empty() || slots_.empty())
    throw RecipeError("FlatParams::leave_grads_to_autograd: needs the whole model's flat parameters without first-write hooks");
  autograd_grads_ = true;
  grad_ = at::Tensor();
  zero_grad();
}

std::vector<at::Tensor> FlatParams::slot_grads(std::optional<int> group) const {
  std::vector<at::Tensor> out;
  for (const auto& s : slots_) {
    if (group && s.group != *group) continue;
    out.push_back(autograd_grads_ ? s.param.grad() : grad_.narrow(0, s.offset, s.numel).view(s.shape));
  }
  return out;
}

std::vector<at::Tensor> FlatParams::slot_views(const at::Tensor& flat, int group) const {
  std::vector<at::Tensor> out;
  for (const auto& s : slots_)
    if (s.group == group) out.push_back(flat.narrow(0, s.offset, s.numel).view(s.shape));
  return out;
}

// The nodes outlive this object while their parameters do (a second FlatParams over the same
// model, after auto_find_batch_size or a second train()): its hooks must not.
FlatParams::~FlatParams() {
  for (auto& [node, key] : accumulators_) node->del_post_hook(key);
}

}  // namespace runner::optim
