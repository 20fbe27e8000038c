#include "runtime/dist/zero3.h"

#include <algorithm>
#include <set>
#include <unordered_map>


#include "runtime/dist/grad_ready.h"
#include "runtime/dist/zero3_state.h"
#include "runtime/models/parameter_store.h"
#include <c10/core/GradMode.h>

namespace runner::dist {

Zero3::Zero3(std::shared_ptr<Communicator> comm, optim::FlatParams& full, models::Module& model, Zero3Options options,
             std::shared_ptr<Communicator> replicas)
    : state_(std::make_shared<State>()) {
  State& s = *state_;
  s.comm = std::move(comm);
  s.replicas = std::move(replicas);
  s.W = s.comm->size();
  s.rank = s.comm->rank();
  s.options = options;

  // Units: the root, then wrapped modules in pre-order (their parameter-name prefixes).
  std::set<std::string> wrap(options.wrap_classes.begin(), options.wrap_classes.end());
  if (wrap.empty())
    for (const auto& c : model.no_split_modules()) wrap.insert(c);
  s.units.emplace_back();
  s.units[0].name = "(root)";
  s.units[0].module = &model;
  std::vector<std::string> prefixes{""};
  // Size policy (PyTorch's size_based_auto_wrap_policy): bottom-up, a child whose
  // not-yet-wrapped parameters reach min_num_params becomes a unit.
  std::function<int64_t(models::Module&, const std::string&)> visit = [&](models::Module& m, const std::string& path) -> int64_t {
    int64_t subtree = m.num_parameters();
    for (const auto& [name, child] : m.children()) {
      const std::string cp = path.empty() ? name : path + "." + name;
      const size_t before = s.units.size();
      const bool by_class = wrap.count(child->type_name()) > 0;
      if (by_class) {  // reserve the slot first: pre-order
        s.units.emplace_back();
        s.units.back().name = cp;
        s.units.back().module = child.get();
        prefixes.push_back(cp + ".");
      }
      const int64_t unwrapped = visit(*child, cp);
      if (by_class) {
        subtree -= child->num_parameters();
      } else if (options.min_num_params > 0 && unwrapped >= options.min_num_params) {
        s.units.insert(s.units.begin() + static_cast<long>(before), Unit{});
        s.units[before].name = cp;
        s.units[before].module = child.get();
        prefixes.insert(prefixes.begin() + static_cast<long>(before), cp + ".");
        subtree -= child->num_parameters();
      } else {
        subtree -= child->num_parameters() - unwrapped;
      }
    }
    return subtree;
  };
  visit(model, "");

  // Parameters → units (longest prefix), grouped; layout per unit and group. Frozen
  // parameters of the trainable ones' dtype (a LoRA model's base) are sharded too, in a last
  // group the optimizer never sees (DeepSpeed partitions them the same way); others stay
  // whole on every rank.
  const int num_groups = static_cast<int>(full.groups().size());
  std::vector<std::pair<std::string, at::Tensor>> frozen;
  for (const auto& [name, p] : model.named_parameters())
    if (!p.requires_grad() && p.scalar_type() == full.slots().front().param.scalar_type()) frozen.emplace_back(name, p);
  const int all_groups = num_groups + (frozen.empty() ? 0 : 1);
  for (auto& u : s.units) {
    u.groups.resize(static_cast<size_t>(all_groups));
    for (int g = 0; g < all_groups; ++g) u.groups[static_cast<size_t>(g)].group = g;
    if (!frozen.empty()) u.groups.back().frozen = true;
  }
  auto unit_of = [&](const std::string& name) {
    size_t best = 0;
    for (size_t i = 1; i < prefixes.size(); ++i)
      if (name.rfind(prefixes[i], 0) == 0 && prefixes[i].size() > prefixes[best].size()) best = i;
    return best;
  };
  std::vector<size_t> unit_of_slot;
  for (const auto& slot : full.slots()) {
    const size_t best = unit_of(slot.name);
    UnitGroup& g = s.units[best].groups[static_cast<size_t>(slot.group)];
    g.pieces.push_back({slot.param, slot.name, slot.offset, g.numel, slot.numel});
    g.numel += slot.numel;
    s.units[best].n_params += 1;
    unit_of_slot.push_back(best);
  }
  for (const auto& [name, p] : frozen) {
    UnitGroup& g = s.units[unit_of(name)].groups.back();
    g.pieces.push_back({p, name, 0, g.numel, p.numel()});
    g.numel += p.numel();
  }
  // Shard buffer: group-major (so each optimizer group is one range), units within; the
  // frozen group last, outside what the optimizer owns.
  int64_t shard_total = 0, trainable_total = 0;
  std::vector<optim::GroupRange> ranges;
  for (int gi = 0; gi < all_groups; ++gi) {
    const int64_t begin = shard_total;
    for (auto& u : s.units) {
      UnitGroup& g = u.groups[static_cast<size_t>(gi)];
      g.chunk = (g.numel + s.W - 1) / s.W;
      if (s.options.ordered) g.chunk = ordered_shard_size(g.chunk);
      g.shard_offset = shard_total;
      shard_total += g.chunk;
    }
    if (gi < num_groups) ranges.push_back({begin, shard_total}), trainable_total = shard_total;
  }
  // A model from_pretrained left in its files (parameter_store.h): each rank reads its own
  // chunks from the files below, on the device the model was moved to.
  const models::StoreList records = models::stores_in(model);
  auto opts = full.slots().front().param.options().requires_grad(false);
  const at::Tensor& first = full.slots().front().param;
  if (const models::ParameterStore* store = models::store_of(records, first); store && store->in_file(first)) opts = opts.device(store->device());
  // Offloaded shards sit in host memory, page-locked when they are copied to and from a GPU.
  const auto shard_opts = options.offload ? opts.device(at::kCPU).pinned_memory(options.pin_offload && !opts.device().is_cpu()) : opts;
  shard_data_ = at::zeros({shard_total}, shard_opts);
  shard_grad_ = at::zeros({trainable_total}, shard_opts);
  s.shard_data = shard_data_;
  s.shard_grad = shard_grad_;
  s.unit_options = opts;
  // Unit by unit: move the parameters into the unit buffer (their old storage is freed as
  // they leave it), keep this rank's chunk, free the buffer. Peak: the model plus one unit;
  // for a model still in its files, one unit (whole values are read only for units that
  // stay gathered, which are small; the others contribute this rank's chunk alone).
  c10::NoGradGuard no_grad;
  for (auto& u : s.units) {
    for (const auto& g : u.groups) u.numel += g.numel;
    u.persistent = u.numel <= options.persistence_threshold;
    for (auto& g : u.groups) {
      g.in_unit = u.chunk_total;
      u.chunk_total += g.chunk;
      if (!g.frozen) u.grad_total += g.chunk;
      g.full = at::empty({g.numel}, opts);
      const int64_t begin = static_cast<int64_t>(s.rank) * g.chunk, end = begin + std::clamp<int64_t>(g.numel - begin, 0, g.chunk);
      for (auto& p : g.pieces) {
        at::Tensor view = g.full.narrow(0, p.local, p.numel).view(p.param.sizes());
        // This rank's part of the piece goes into its shard: straight from the files for a
        // parameter still there, unless its unit stays gathered and needs every value.
        const int64_t b = std::max(begin, p.local), e = std::min(end, p.local + p.numel);
        models::ParameterStore* store = models::store_of(records, p.param);
        if (store && store->in_file(p.param) && !u.persistent) {
          if (b < e) shard_data_.narrow(0, g.shard_offset + (b - begin), e - b).copy_(store->read(p.param, b - p.local, e - b));
          store->in_unit(p.param, view);  // the parameter now lives in the unit buffer
        } else {
          models::place(records, p.param, view);
          if (b < e) shard_data_.narrow(0, g.shard_offset + (b - begin), e - b).copy_(g.full.narrow(0, b, e - b));
        }
      }
    }
    u.gathered = true;
    s.release(u);
  }
  // Parameters left whole (frozen ones of another dtype) that are still in their files load
  // now, and the records go (the model is no longer waiting for its files).
  models::materialize(model);
  shard_ = optim::FlatParams::over(shard_data_.narrow(0, 0, trainable_total), shard_grad_, ranges);

  // Hooks: forward pre/post per unit module, gradient-ready per parameter.
  for (size_t i = 1; i < s.units.size(); ++i) s.order.push_back(s.units.size() - i);
  s.order.push_back(0);
  std::weak_ptr<State> weak = state_;
  for (size_t i = 0; i < s.units.size(); ++i) {
    auto hooks = std::make_shared<models::Module::ForwardHooks>();
    hooks->pre = [weak, i](models::Module&) {
      if (auto st = weak.lock()) st->pre(i);
    };
    hooks->post = [weak, i](models::Module&, const std::vector<at::Tensor>& outputs) {
      if (auto st = weak.lock()) st->post(i, outputs, weak);
    };
    s.units[i].module->set_forward_hooks(hooks);
  }
  size_t k = 0;
  for (const auto& slot : full.slots()) {
    const size_t index = k++;
    s.accumulators.push_back(on_grad_accumulated(slot.param, slot.name, [weak, index] {
      if (auto st = weak.lock()) st->on_ready(index);
    }));
  }
  s.unit_of_param = unit_of_slot;
  s.trace_pos.assign(s.units.size(), -1);
  s.param_seen.assign(s.unit_of_param.size(), 0);
}

Zero3::~Zero3() {
  if (!state_) return;
  for (auto& u : state_->units)
    if (u.module) u.module->set_forward_hooks(nullptr);
}

void Zero3::begin_micro_step() {
  State& s = *state_;
  s.next = 0;
  s.discard = false;
  std::fill(s.param_seen.begin(), s.param_seen.end(), 0);
  for (auto& u : s.units) u.ready = 0, u.release_pending = false;
}

void Zero3::discard_micro_step() { state_->discard = true; }

void Zero3::end_micro_step() {
  State& s = *state_;
  c10::NoGradGuard no_grad;
  while (s.next < s.order.size()) s.reduce(s.units[s.order[s.next++]]);
  s.drain();
  if (s.first_step) {
    // Units whose forward never ran through the hooks cannot be gathered on demand: they
    // stay whole from now on and are refreshed after every optimizer step.
    for (auto& u : s.units)
      if (!u.seen) u.persistent = true;
    s.first_step = false;
  }
  for (auto& u : s.units) s.release(u);
}

void Zero3::after_optimizer_step() {
  State& s = *state_;
  c10::NoGradGuard no_grad;
  s.drain();
  for (auto& u : s.units)
    if (u.persistent && s.active) {
      u.gathered = false;
      s.gather(u);
    }
}

void Zero3::gather_all() {
  c10::NoGradGuard no_grad;
  state_->drain();
  for (auto& u : state_->units) state_->gather(u);
}

void Zero3::release_all(bool write_back) {
  State& s = *state_;
  c10::NoGradGuard no_grad;
  s.drain();
  for (auto& u : s.units) {
    if (write_back && u.gathered) s.write_back(u);
    s.release(u);
  }
}

void Zero3::visit_whole(const std::vector<at::Tensor>& tensors, const std::function<void(size_t, bool)>& visit, bool write_back) {
  State& s = *state_;
  c10::NoGradGuard no_grad;
  s.drain();
  std::unordered_multimap<const void*, size_t> wanted;  // a tensor may be listed twice (tied weights)
  for (size_t i = 0; i < tensors.size(); ++i) wanted.emplace(tensors[i].unsafeGetTensorImpl(), i);
  std::vector<char> visited(tensors.size(), 0);
  for (auto& u : s.units) {
    std::vector<size_t> here;
    for (const auto& g : u.groups)
      for (const auto& p : g.pieces) {
        auto [begin, end] = wanted.equal_range(p.param.unsafeGetTensorImpl());
        for (auto it = begin; it != end; ++it) here.push_back(it->second);
      }
    if (here.empty()) continue;
    const bool was_gathered = u.gathered;
    s.gather(u);
    for (size_t i : here) {
      visit(i, !was_gathered && !u.persistent);
      visited[i] = 1;
    }
    if (write_back) s.write_back(u);
    if (!was_gathered) s.release(u);
  }
  for (size_t i = 0; i < tensors.size(); ++i)
    if (!visited[i]) visit(i, false);
}

void Zero3::hold_whole(bool on) {
  if (on) {
    gather_all();
    state_->active = false;
  } else {
    state_->active = true;
    release_all(/*write_back=*/false);
  }
}

}  // namespace runner::dist
