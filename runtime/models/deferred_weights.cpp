#include "runtime/models/deferred_weights.h"

#include <c10/core/GradMode.h>
#include <torch/csrc/autograd/variable.h>

#include "runtime/core/errors.h"
#include "runtime/io/safetensors.h"

namespace runner::models {

namespace {
thread_local int meta_depth = 0;
std::atomic<int64_t> live_records{0};
// Whole parameters are read in pieces of this many values, so loading needs no second copy
// of a large tensor (an embedding) in the file's dtype beside it.
constexpr int64_t kReadPiece = int64_t{1} << 24;
}  // namespace

MetaInit::MetaInit() { ++meta_depth; }
MetaInit::~MetaInit() { --meta_depth; }
bool meta_init_active() { return meta_depth > 0; }

at::TensorOptions param_options() {
  const at::TensorOptions o;  // the default dtype, as at::empty(shape) gives
  return meta_init_active() ? o.device(at::kMeta) : o;
}

DeferredWeights::DeferredWeights() { ++live_records; }
DeferredWeights::~DeferredWeights() { --live_records; }
int64_t DeferredWeights::live() { return live_records.load(); }

void DeferredWeights::add(const at::Tensor& param, std::shared_ptr<const io::SafetensorsFile> file, std::string name) {
  sources_[param.unsafeGetTensorImpl()] = Source{std::move(file), std::move(name), param.numel()};
}

bool DeferredWeights::covers(const at::Tensor& param) const { return sources_.count(param.unsafeGetTensorImpl()) != 0; }

const DeferredWeights::Source& DeferredWeights::source(const at::Tensor& param) const {
  auto it = sources_.find(param.unsafeGetTensorImpl());
  if (it == sources_.end()) throw CheckpointError("a parameter of " + std::to_string(param.numel()) + " values is not in the model's files");
  return it->second;
}

at::Tensor DeferredWeights::read(const at::Tensor& param, int64_t begin, int64_t count) const {
  const Source& s = source(param);
  at::Tensor out = s.file->load_elements(s.name, begin, count);
  read_ += count;
  return out;
}

void DeferredWeights::load(const at::Tensor& param, const at::Tensor& dst) const {
  at::Tensor flat = dst.view({-1});
  for (int64_t b = 0; b < flat.numel(); b += kReadPiece) {
    const int64_t n = std::min(kReadPiece, flat.numel() - b);
    flat.narrow(0, b, n).copy_(read(param, b, n));  // converts to dst's dtype and device
  }
}

int64_t DeferredWeights::values_total() const {
  int64_t n = 0;
  for (const auto& [impl, s] : sources_) n += s.numel;
  return n;
}

void assign_data(const at::Tensor& param, const at::Tensor& value) {
  if (!param.is_meta()) {
    const_cast<at::Tensor&>(param).set_data(value);
    return;
  }
  if (!value.sizes().equals(param.sizes()) || value.is_meta())
    throw CheckpointError("internal: a meta parameter takes a dense tensor of its own shape");
  if (auto* meta = torch::autograd::impl::get_autograd_meta(param)) {  // as set_data does on a device change
    std::lock_guard<std::mutex> lock(meta->mutex_);
    meta->grad_accumulator_.reset();
  }
  param.unsafeGetTensorImpl()->shallow_copy_from(value.getIntrusivePtr());
}

namespace {
void collect_records(const Module& m, std::vector<std::shared_ptr<DeferredWeights>>& out) {
  if (m.deferred()) out.push_back(m.deferred());
  for (const auto& [name, child] : m.children()) collect_records(*child, out);
}

void clear_records(Module& m) {
  m.set_deferred(nullptr);
  for (const auto& [name, child] : m.children()) clear_records(*child);
}
}  // namespace

DeferredRecords deferred_in(const Module& model) {
  DeferredRecords out;
  if (DeferredWeights::live() > 0) collect_records(model, out);
  return out;
}

const DeferredWeights& record_of(const DeferredRecords& records, const at::Tensor& param, const std::string& name) {
  for (const auto& r : records)
    if (r->covers(param)) return *r;
  throw CheckpointError("parameter '" + name + "' was never loaded (it is not in the model's files)");
}

void place(const DeferredRecords& records, const at::Tensor& param, const at::Tensor& slot, const std::string& name) {
  c10::NoGradGuard no_grad;
  if (param.is_meta()) record_of(records, param, name).load(param, slot);
  else slot.copy_(param);
  assign_data(param, slot);
}

bool is_deferred(const Module& model) { return !deferred_in(model).empty(); }

void materialize(Module& model) {
  const DeferredRecords records = deferred_in(model);
  if (records.empty()) return;
  for (const auto& [name, p] : model.named_parameters())
    if (p.is_meta()) place(records, p, at::empty(p.sizes(), p.options().device(record_of(records, p, name).device())), name);
  clear_records(model);
}

}  // namespace runner::models
