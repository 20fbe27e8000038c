#include "runtime/models/module.h"

#include <algorithm>
#include <set>

#include <c10/core/GradMode.h>

#include "runtime/core/errors.h"
#include "runtime/models/activation_checkpoint.h"
#include "runtime/models/parameter_store.h"

namespace runner::models {

namespace {
thread_local int dropout_off = 0;  // DropoutDisabled scopes alive on this thread
}  // namespace

DropoutDisabled::DropoutDisabled() { ++dropout_off; }
DropoutDisabled::~DropoutDisabled() { --dropout_off; }
bool dropout_disabled() { return dropout_off > 0; }

namespace {
std::string shape_str(at::IntArrayRef s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}
}  // namespace

at::Tensor Module::forward_cached(const at::Tensor&, const at::Tensor&, KVCache&, int64_t) {
  throw RecipeError(type_name_ + " cannot generate (generation needs a causal language model: models.gpt, models.llama, models.from_pretrained)");
}

at::Tensor Module::forward_impl(const at::Tensor&) {
  throw RecipeError(type_name_ + " takes a batch table, not a tensor");
}

TensorMap Module::forward_batch_impl(const TensorMap&) {
  throw RecipeError(type_name_ + " takes a tensor, not a batch table");
}

at::Tensor Module::forward(const at::Tensor& x) {
  auto body = [this](const at::Tensor& in) {
    at::Tensor out = forward_impl(in);
    if (adapter_) out = adapter_(in, out);
    return output_hook_ ? output_hook_(*this, out) : out;
  };
  return hooked([&] {
    if (!checkpointing_) return body(x);
    return maybe_checkpointed({x}, [body](const std::vector<at::Tensor>& in) { return body(in[0]); });  // runs again in backward
  });
}

at::Tensor Module::maybe_checkpointed(const std::vector<at::Tensor>& inputs,
                                      const std::function<at::Tensor(const std::vector<at::Tensor>&)>& body) {
  if (!checkpointing_ || !training_ || !c10::GradMode::is_enabled()) return body(inputs);
  return checkpointed(body, inputs, offload_);
}

TensorMap Module::forward_batch(const TensorMap& batch) {
  materialize(*this);  // weights still in their files load before a first forward (no-op after)
  if (!hooks_) return forward_batch_impl(batch);
  auto keep = hooks_;  // the hook may be removed while we run
  keep->pre(*this);
  TensorMap out = forward_batch_impl(batch);
  std::vector<at::Tensor> outputs;
  for (const auto& [name, t] : out) outputs.push_back(t);
  keep->post(*this, outputs);
  return out;
}

void Module::collect(const std::string& prefix, bool params, bool buffers, bool persistent_only, bool dedupe,
                     NamedTensorList& out, std::vector<const void*>& seen) const {
  auto add = [&](const std::string& name, const at::Tensor& t) {
    if (!t.defined()) return;
    if (dedupe) {
      const void* key = t.unsafeGetTensorImpl();
      if (std::find(seen.begin(), seen.end(), key) != seen.end()) return;
      seen.push_back(key);
    }
    out.emplace_back(prefix + name, t);
  };
  if (params)
    for (const auto& [name, t] : params_) add(name, t);
  if (buffers)
    for (const auto& b : buffers_)
      if (b.persistent || !persistent_only) add(b.name, b.value);
  for (const auto& [name, c] : children_) c->collect(prefix + name + ".", params, buffers, persistent_only, dedupe, out, seen);
}

NamedTensorList Module::named_parameters() const {
  NamedTensorList out;
  std::vector<const void*> seen;
  collect("", true, false, false, true, out, seen);
  return out;
}

std::vector<at::Tensor> Module::parameters() const {
  std::vector<at::Tensor> out;
  for (auto& [name, t] : named_parameters()) out.push_back(t);
  return out;
}

NamedTensorList Module::named_buffers() const {
  NamedTensorList out;
  std::vector<const void*> seen;
  collect("", false, true, false, true, out, seen);
  return out;
}

NamedTensorList Module::state_dict() const {
  NamedTensorList out;
  std::vector<const void*> seen;
  collect("", true, true, true, false, out, seen);
  return out;
}

NamedTensorList Module::unique_state_dict() const {
  NamedTensorList out;
  std::vector<const void*> seen;
  collect("", true, true, true, true, out, seen);
  return out;
}

Module::LoadPlan Module::plan_load(const NamedTensorList& tensors, bool strict) {
  LoadPlan plan;
  LoadReport& report = plan.report;
  const NamedTensorList own = state_dict();
  std::map<std::string, at::Tensor> given(tensors.begin(), tensors.end());
  // A tied alias the file leaves out (lm_head.weight of a tied model) is loaded through the
  // name it shares its tensor with.
  std::vector<const void*> loaded;
  for (const auto& [name, dst] : own)
    if (given.count(name)) loaded.push_back(dst.unsafeGetTensorImpl());
  for (const auto& [name, dst] : own) {
    auto it = given.find(name);
    if (it == given.end()) {
      if (std::find(loaded.begin(), loaded.end(), dst.unsafeGetTensorImpl()) == loaded.end()) report.missing.push_back(name);
      continue;
    }
    if (!it->second.sizes().equals(dst.sizes()))
      throw CheckpointError("'" + name + "': shape " + shape_str(it->second.sizes()) + " in the file, " + shape_str(dst.sizes()) +
                            " in the model");
    if (in_file(stores_in(*this), dst)) materialize(*this);  // a placeholder would keep nothing
    if (in_file(stores_in(*this), dst))
      throw CheckpointError("'" + name + "' is still in its model's files: load the whole model (the module from_pretrained returned) first");
    plan.targets.push_back(dst);
    plan.sources.push_back(it->second);
    given.erase(it);
  }
  for (const auto& [name, t] : given) report.unexpected.push_back(name);
  if (strict && (!report.missing.empty() || !report.unexpected.empty())) {
    std::string msg;
    auto list = [](const std::vector<std::string>& v) {
      std::string s;
      for (size_t i = 0; i < v.size() && i < 5; ++i) s += (i ? ", " : "") + v[i];
      return v.size() > 5 ? s + ", … (" + std::to_string(v.size()) + " in all)" : s;
    };
    if (!report.missing.empty()) msg += "missing keys: " + list(report.missing);
    if (!report.unexpected.empty()) msg += std::string(msg.empty() ? "" : "; ") + "unexpected keys: " + list(report.unexpected);
    throw CheckpointError(msg);
  }
  return plan;
}

Module::LoadReport Module::LoadPlan::copy_all() const {
  c10::NoGradGuard no_grad;
  for (size_t i = 0; i < targets.size(); ++i) targets[i].copy_(sources[i]);
  return report;
}

Module::LoadReport Module::load_state_dict(const NamedTensorList& tensors, bool strict) {
  return plan_load(tensors, strict).copy_all();
}

std::shared_ptr<Module> Module::child(const std::string& name) const {
  for (const auto& [n, c] : children_)
    if (n == name) return c;
  return nullptr;
}

at::Tensor Module::parameter(const std::string& name) const {
  for (const auto& [n, t] : params_)
    if (n == name) return t;
  return {};
}

at::Tensor Module::buffer(const std::string& name) const {
  for (const auto& b : buffers_)
    if (b.name == name) return b.value;
  return {};
}

void Module::to(at::ScalarType dtype) {
  c10::NoGradGuard no_grad;
  const StoreList stores = stores_in(*this);
  for (auto& [name, t] : named_parameters()) {
    if (!t.is_floating_point()) continue;
    if (const ParameterStore* s = store_of(stores, t)) s->convert(t, dtype);  // a placeholder stays one
    else t.set_data(t.to(dtype));
  }
  NamedTensorList persistent;
  std::vector<const void*> seen;
  collect("", false, true, /*persistent_only=*/true, true, persistent, seen);
  for (auto& [name, t] : persistent)
    if (t.is_floating_point()) t.set_data(t.to(dtype));
}

void Module::to(at::Device device) {
  c10::NoGradGuard no_grad;
  const StoreList stores = stores_in(*this);
  for (const auto& s : stores) s->set_device(device);
  for (auto& [name, t] : named_parameters())
    if (t.device() != device && !in_file(stores, t)) t.set_data(t.to(device));
  for (auto& [name, t] : named_buffers())
    if (t.device() != device) t.set_data(t.to(device));
}

std::optional<at::Device> Module::device() const {
  if (const auto params = named_parameters(); !params.empty()) {
    const at::Tensor& p = params.front().second;
    if (ParameterStore* s = store_of(stores_in(*this), p); s && s->in_file(p)) return s->device();
    return p.device();
  }
  if (const auto buffers = named_buffers(); !buffers.empty()) return buffers.front().second.device();
  return std::nullopt;
}

std::string Module::hf_dtype() const {
  for (const auto& [name, t] : named_parameters()) {
    switch (t.scalar_type()) {
      case at::kBFloat16: return "bfloat16";
      case at::kHalf: return "float16";
      case at::kDouble: return "float64";
      case at::kFloat: return "float32";
      default: continue;
    }
  }
  return "float32";
}

void Module::train(bool mode) {
  training_ = mode;
  for (auto& [n, c] : children_) c->train(mode);
}

at::Tensor& Module::register_parameter(const std::string& name, at::Tensor value, bool requires_grad) {
  for (auto& [n, t] : params_)
    if (n == name) {
      t = value.defined() ? value.requires_grad_(requires_grad) : value;
      for (auto& [m, member] : mirrors_)
        if (m == name) *member = t;
      return t;
    }
  // Built under MetaInit: a placeholder until its file's values arrive (parameter_store.h).
  if (value.defined() && value.is_meta() && meta_init_active()) value = placeholder(value.sizes(), value.scalar_type());
  if (value.defined()) value.requires_grad_(requires_grad);
  params_.emplace_back(name, value);
  return params_.back().second;
}

at::Tensor& Module::register_buffer(const std::string& name, at::Tensor value, bool persistent) {
  for (auto& b : buffers_)
    if (b.name == name) return b.value = value;
  buffers_.push_back({name, value, persistent});
  return buffers_.back().value;
}

std::shared_ptr<Module> Module::register_module(const std::string& name, std::shared_ptr<Module> child) {
  for (auto& [n, c] : children_)
    if (n == name) return c = child;
  children_.emplace_back(name, child);
  return child;
}

int64_t Module::num_parameters() const {
  int64_t n = 0;
  for (const auto& [name, t] : named_parameters()) n += t.numel();
  return n;
}

}  // namespace runner::models
