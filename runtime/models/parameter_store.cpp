#include "runtime/models/parameter_store.h"

#include <c10/core/GradMode.h>
#include <limits>

#include "runtime/core/errors.h"
#include "runtime/io/safetensors.h"

namespace runner::models {

namespace {
thread_local int meta_depth = 0;
std::atomic<int64_t> waiting_params{0};
// Whole parameters are read in pieces of this many values, so loading needs no second copy
// of a large tensor (an embedding) in the file's dtype beside it.
constexpr int64_t kReadPiece = int64_t{1} << 24;
const void* key(const at::Tensor& t) { return t.unsafeGetTensorImpl(); }
}  // namespace

MetaInit::MetaInit() { ++meta_depth; }
MetaInit::~MetaInit() { --meta_depth; }
bool meta_init_active() { return meta_depth > 0; }

at::TensorOptions param_options() {
  const at::TensorOptions o;  // the default dtype, as at::empty(shape) gives
  return meta_init_active() ? o.device(at::kMeta) : o;
}

at::Tensor placeholder(at::IntArrayRef shape, at::ScalarType dtype) {
  // Zero strides: one element of storage stands for all of them. Not a view (set_data and
  // requires_grad treat it as any leaf).
  at::Tensor t = at::empty_strided(shape, std::vector<int64_t>(shape.size(), 0), at::TensorOptions().dtype(dtype));
  if (t.numel() > 0) {
    at::Tensor one = t.as_strided({1}, {1});
    if (at::isFloatingType(dtype)) one.fill_(std::numeric_limits<double>::quiet_NaN());
    else one.zero_();
  }
  return t;
}

ParameterStore::~ParameterStore() {
  for (const auto& [impl, s] : states_)
    if (s == State::kInFile) --waiting_params;
}

int64_t ParameterStore::waiting() { return waiting_params.load(); }

void ParameterStore::add(const at::Tensor& param, std::shared_ptr<const io::SafetensorsFile> file, std::string name) {
  sources_[key(param)] = Source{std::move(file), std::move(name), param.numel()};
  set_state(param, State::kInFile);
}

bool ParameterStore::covers(const at::Tensor& param) const { return sources_.count(key(param)) != 0; }

ParameterStore::State ParameterStore::state(const at::Tensor& param) const {
  auto it = states_.find(key(param));
  return it == states_.end() ? State::kWhole : it->second;
}

void ParameterStore::set_state(const at::Tensor& param, State s) {
  State& slot = states_.try_emplace(key(param), State::kWhole).first->second;
  if (slot == State::kInFile && s != State::kInFile) --waiting_params;
  if (slot != State::kInFile && s == State::kInFile) ++waiting_params;
  slot = s;
}

const ParameterStore::Source& ParameterStore::source(const at::Tensor& param) const {
  auto it = sources_.find(key(param));
  if (it == sources_.end()) throw CheckpointError("a parameter of " + std::to_string(param.numel()) + " values is not in the model's files");
  return it->second;
}

at::Tensor ParameterStore::read(const at::Tensor& param, int64_t begin, int64_t count) const {
  const Source& s = source(param);
  at::Tensor out = s.file->load_elements(s.name, begin, count);
  read_ += count;
  return out;
}

void ParameterStore::load(const at::Tensor& param, const at::Tensor& dst) {
  at::Tensor flat = dst.view({-1});
  for (int64_t b = 0; b < flat.numel(); b += kReadPiece) {
    const int64_t n = std::min(kReadPiece, flat.numel() - b);
    flat.narrow(0, b, n).copy_(read(param, b, n));  // converts to dst's dtype and device
  }
}

int64_t ParameterStore::values_total() const {
  int64_t n = 0;
  for (const auto& [impl, s] : sources_) n += s.numel;
  return n;
}

void ParameterStore::materialize(const at::Tensor& param) {
  if (!in_file(param)) return;
  place(param, at::empty(param.sizes(), param.options().device(device_)));
  set_state(param, State::kWhole);
}

void ParameterStore::place(const at::Tensor& param, const at::Tensor& slot) {
  if (!slot.sizes().equals(param.sizes())) throw CheckpointError("internal: a parameter is placed into a slot of another shape");
  c10::NoGradGuard no_grad;
  if (in_file(param)) load(param, slot);
  else slot.copy_(param);
  const_cast<at::Tensor&>(param).set_data(slot);
  set_state(param, State::kInFlatBuffer);
}

void ParameterStore::in_unit(const at::Tensor& param, const at::Tensor& view) {
  if (!view.sizes().equals(param.sizes())) throw CheckpointError("internal: a parameter joins a unit view of another shape");
  c10::NoGradGuard no_grad;
  if (!in_file(param)) view.copy_(param);
  const_cast<at::Tensor&>(param).set_data(view);
  set_state(param, State::kInUnit);
}

void ParameterStore::convert(const at::Tensor& param, at::ScalarType dtype) const {
  c10::NoGradGuard no_grad;
  at::Tensor& p = const_cast<at::Tensor&>(param);
  p.set_data(in_file(param) ? placeholder(param.sizes(), dtype) : param.to(dtype));
}

void ParameterStore::release_memory(const at::Tensor& buffer) {
  // The storage object stays (every view keeps pointing at it); only its memory goes.
  c10::Storage shared = buffer.storage();  // a handle to the same storage
  shared.reset_legacy();
}

void ParameterStore::refill_memory(const at::Tensor& buffer) {
  const size_t bytes = static_cast<size_t>(buffer.numel()) * buffer.element_size();
  if (buffer.storage().nbytes() >= bytes && buffer.storage().data() != nullptr) return;
  // resize_ grows the shared storage in place (a tensor of another size over the same storage:
  // resizing a tensor to its own size is a no-op even when its storage is empty).
  at::Tensor grow = at::empty({0}, buffer.options().requires_grad(false));
  grow.set_(buffer.storage(), 0, {0}, {1});
  grow.resize_({buffer.numel()});
}

namespace {
void collect_stores(const Module& m, StoreList& out) {
  if (m.parameter_store()) out.push_back(m.parameter_store());
  for (const auto& [name, child] : m.children()) collect_stores(*child, out);
}
}  // namespace

StoreList stores_in(const Module& model) {
  StoreList out;
  collect_stores(model, out);
  return out;
}

ParameterStore* store_of(const StoreList& stores, const at::Tensor& param) {
  for (const auto& s : stores)
    if (s->covers(param)) return s.get();
  return nullptr;
}

bool in_file(const StoreList& stores, const at::Tensor& param) {
  const ParameterStore* s = store_of(stores, param);
  return s && s->in_file(param);
}

void place(const StoreList& stores, const at::Tensor& param, const at::Tensor& slot) {
  if (ParameterStore* s = store_of(stores, param)) return s->place(param, slot);
  c10::NoGradGuard no_grad;
  slot.copy_(param);
  const_cast<at::Tensor&>(param).set_data(slot);
}

bool is_deferred(const Module& model) {
  if (ParameterStore::waiting() == 0) return false;
  const StoreList stores = stores_in(model);
  for (const auto& [name, p] : model.named_parameters())
    if (in_file(stores, p)) return true;
  return false;
}

void materialize(Module& model) {
  if (ParameterStore::waiting() == 0) return;
  const StoreList stores = stores_in(model);
  if (stores.empty()) return;
  for (const auto& [name, p] : model.named_parameters())
    if (ParameterStore* s = store_of(stores, p)) s->materialize(p);
}

}  // namespace runner::models
