#include "runtime/dist/zero3.h"

#include <algorithm>
#include <set>

#include <c10/core/StorageImpl.h>
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/utils/lambda_post_hook.h>
#include <torch/csrc/autograd/variable.h>

#include "runtime/core/errors.h"

namespace runner::dist {

namespace {

struct Piece {  // one parameter inside a unit-group buffer
  at::Tensor param;
  std::string name;
  int64_t flat_offset = 0, local = 0, numel = 0;
};

struct UnitGroup {
  int group = 0;
  std::vector<Piece> pieces;
  int64_t numel = 0, chunk = 0;  // values, and values per rank (padded)
  int64_t shard_offset = 0;      // where this rank's chunk sits in the shard buffer
  int64_t in_unit = 0;           // offset of this group's chunk inside the unit's block
  at::Tensor full;               // parameters are views of its storage
};

struct Unit {
  std::string name;
  models::Module* module = nullptr;
  std::vector<UnitGroup> groups;
  int64_t chunk_total = 0, numel = 0;
  size_t n_params = 0, ready = 0;
  bool gathered = false, persistent = false, seen = false;
};

// Frees a buffer's memory while every view of it (parameters, tensors autograd saved)
// keeps pointing at the same storage object, which allocate() fills again.
void free_storage(at::Tensor& t) {
  c10::StorageImpl* s = t.storage().unsafeGetStorageImpl();
  s->set_data_ptr_noswap(at::DataPtr(nullptr, t.device()));
  s->set_nbytes(0);
}

void allocate(at::Tensor& t) {
  c10::StorageImpl* s = t.storage().unsafeGetStorageImpl();
  const size_t bytes = static_cast<size_t>(t.numel()) * t.element_size();
  if (s->nbytes() >= bytes && s->data() != nullptr) return;
  s->set_data_ptr_noswap(s->allocator()->allocate(bytes));
  s->set_nbytes(bytes);
}

// The buffer's memory as a plain tensor: writing through it does not bump the version
// counter of the parameters (autograd must not see a gather as an in-place change).
at::Tensor raw(const at::Tensor& t) { return at::from_blob(t.storage().data(), {t.numel()}, t.options().requires_grad(false)); }

}  // namespace

struct Zero3::State {
  std::shared_ptr<Communicator> comm;
  int W = 1, rank = 0;
  std::vector<Unit> units;          // [0] is the root
  std::vector<size_t> order;        // reduction order
  size_t next = 0;
  bool active = true, first_step = true, verify = true, ordered = false;
  at::Tensor shard_data, shard_grad;
  std::vector<std::shared_ptr<torch::autograd::Node>> accumulators;
  std::vector<size_t> unit_of_param;  // accumulator index → unit
  std::vector<char> param_seen;

  void gather(Unit& u) {
    if (u.gathered) return;
    const int64_t C = u.chunk_total;
    at::Tensor in = at::empty({C}, shard_data.options());
    for (auto& g : u.groups) in.narrow(0, g.in_unit, g.chunk).copy_(shard_data.narrow(0, g.shard_offset, g.chunk));
    at::Tensor out = in;
    if (W > 1) {
      out = at::empty({W * C}, in.options());
      comm->all_gather(in, out);
    }
    for (auto& g : u.groups) {
      allocate(g.full);
      at::Tensor dst = raw(g.full);
      for (int r = 0; r < W; ++r) {
        const int64_t begin = r * g.chunk, len = std::clamp<int64_t>(g.numel - begin, 0, g.chunk);
        if (len > 0) dst.narrow(0, begin, len).copy_(out.narrow(0, r * C + g.in_unit, len));
      }
    }
    u.gathered = true;
  }

  void release(Unit& u) {
    if (!u.gathered || u.persistent) return;
    for (auto& g : u.groups) free_storage(g.full);
    u.gathered = false;
  }

  // Reduce-scatter the unit's gradients (rank-major blocks of every group), keep this rank's
  // chunk, release the .grad tensors and the unit.
  void reduce(Unit& u) {
    const int64_t C = u.chunk_total;
    at::Tensor in = at::zeros({W * C}, shard_data.options());
    for (auto& g : u.groups) {
      at::Tensor v = at::zeros({W * g.chunk}, in.options());
      for (auto& p : g.pieces) {
        at::Tensor& grad = p.param.mutable_grad();
        if (grad.defined()) v.narrow(0, p.local, p.numel).copy_(grad.reshape(-1));
        grad = at::Tensor();
      }
      for (int r = 0; r < W; ++r) in.narrow(0, r * C + g.in_unit, g.chunk).copy_(v.narrow(0, r * g.chunk, g.chunk));
    }
    if (ordered) {
      // Every rank's piece of this rank's chunk, added in rank order (ordered_reduce.h).
      at::Tensor blocks = in;
      if (W > 1) {
        blocks = at::empty_like(in);
        comm->all_to_all(in, blocks);
      }
      for (auto& g : u.groups)
        for (int r = 0; r < W; ++r) shard_grad.narrow(0, g.shard_offset, g.chunk).add_(blocks.narrow(0, r * C + g.in_unit, g.chunk));
      return release(u);
    }
    at::Tensor out = in;
    if (W > 1) {
      out = at::empty({C}, in.options());
      comm->reduce_scatter(in, out);
    }
    for (auto& g : u.groups) shard_grad.narrow(0, g.shard_offset, g.chunk).add_(out.narrow(0, g.in_unit, g.chunk));
    release(u);
  }

  void advance() {
    while (next < order.size()) {
      Unit& u = units[order[next]];
      if (u.ready < u.n_params) return;
      ++next;
      reduce(u);
    }
  }

  void on_ready(size_t acc) {
    if (!active) return;
    if (param_seen[acc]) throw DistError("a parameter received a second gradient in one step; ZeRO-3 supports one backward per micro-batch");
    param_seen[acc] = 1;
    units[unit_of_param[acc]].ready += 1;
    advance();
  }

  void pre(size_t idx) {
    if (!active) return;
    Unit& u = units[idx];
    u.seen = true;
    at::NoGradGuard no_grad;
    // Until a first step has shown which units really run through their hooks, the model's
    // forward starts with everything gathered.
    if (idx == 0 && first_step && verify)
      for (auto& v : units) gather(v);
    gather(u);
  }

  void post(size_t idx, const std::vector<at::Tensor>& outputs, const std::weak_ptr<State>& weak) {
    if (!active || idx == 0) return;  // the root stays gathered until backward is over
    if (at::GradMode::is_enabled()) {
      for (const auto& o : outputs)
        if (o.defined() && o.requires_grad())
          o.register_hook([weak, idx](const at::TensorBase&) {
            if (auto st = weak.lock(); st && st->active) {
              at::NoGradGuard no_grad;
              st->gather(st->units[idx]);  // backward is about to enter the unit
            }
          });
    }
    release(units[idx]);
  }
};

Zero3::Zero3(std::shared_ptr<Communicator> comm, optim::FlatParams& full, models::Module& model, Zero3Options options)
    : state_(std::make_shared<State>()) {
  State& s = *state_;
  s.comm = std::move(comm);
  s.W = s.comm->size();
  s.rank = s.comm->rank();
  s.verify = options.verify_units;
  s.ordered = options.ordered;

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

  // Parameters → units (longest prefix), grouped; layout per unit and group.
  const int num_groups = static_cast<int>(full.groups().size());
  for (auto& u : s.units) {
    u.groups.resize(static_cast<size_t>(num_groups));
    for (int g = 0; g < num_groups; ++g) u.groups[static_cast<size_t>(g)].group = g;
  }
  std::vector<size_t> unit_of_slot;
  for (const auto& slot : full.slots()) {
    size_t best = 0;
    for (size_t i = 1; i < prefixes.size(); ++i)
      if (slot.name.rfind(prefixes[i], 0) == 0 && prefixes[i].size() > prefixes[best].size()) best = i;
    UnitGroup& g = s.units[best].groups[static_cast<size_t>(slot.group)];
    g.pieces.push_back({slot.param, slot.name, slot.offset, g.numel, slot.numel});
    g.numel += slot.numel;
    s.units[best].n_params += 1;
    unit_of_slot.push_back(best);
  }
  // Shard buffer: group-major (so each optimizer group is one range), units within.
  int64_t shard_total = 0;
  std::vector<optim::GroupRange> ranges;
  for (int gi = 0; gi < num_groups; ++gi) {
    const int64_t begin = shard_total;
    for (auto& u : s.units) {
      UnitGroup& g = u.groups[static_cast<size_t>(gi)];
      g.chunk = (g.numel + s.W - 1) / s.W;
      if (s.ordered) g.chunk = ordered_shard_size(g.chunk);
      g.shard_offset = shard_total;
      shard_total += g.chunk;
    }
    ranges.push_back({begin, shard_total});
  }
  const auto opts = full.slots().front().param.options().requires_grad(false);
  shard_data_ = at::zeros({shard_total}, opts);
  shard_grad_ = at::zeros({shard_total}, opts);
  s.shard_data = shard_data_;
  s.shard_grad = shard_grad_;
  // Unit by unit: move the parameters into the unit buffer (their old storage is freed as
  // they leave it), keep this rank's chunk, free the buffer. Peak: the model plus one unit.
  at::NoGradGuard no_grad;
  for (auto& u : s.units) {
    for (auto& g : u.groups) {
      g.in_unit = u.chunk_total;
      u.chunk_total += g.chunk;
      u.numel += g.numel;
      g.full = at::empty({g.numel}, opts);
      for (auto& p : g.pieces) {
        at::Tensor view = g.full.narrow(0, p.local, p.numel).view(p.param.sizes());
        view.copy_(p.param);
        p.param.set_data(view);  // the parameter now lives in the unit buffer
      }
      const int64_t begin = static_cast<int64_t>(s.rank) * g.chunk, len = std::clamp<int64_t>(g.numel - begin, 0, g.chunk);
      if (len > 0) shard_data_.narrow(0, g.shard_offset, len).copy_(g.full.narrow(0, begin, len));
    }
    u.persistent = u.numel <= options.persistence_threshold;
    u.gathered = true;
    s.release(u);
  }
  shard_ = optim::FlatParams::over(shard_data_, shard_grad_, ranges);

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
    auto acc = torch::autograd::impl::grad_accumulator(slot.param);
    if (!acc) throw DistError("parameter '" + slot.name + "' is not a leaf that requires grad");
    const size_t index = k++;
    acc->add_post_hook(std::make_unique<torch::autograd::utils::LambdaPostHook>(
        [weak, index](const torch::autograd::variable_list& outputs, const torch::autograd::variable_list&) {
          if (auto st = weak.lock()) st->on_ready(index);
          return outputs;
        }));
    s.accumulators.push_back(std::move(acc));
  }
  s.unit_of_param = unit_of_slot;
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
  std::fill(s.param_seen.begin(), s.param_seen.end(), 0);
  for (auto& u : s.units) u.ready = 0;
}

void Zero3::end_micro_step() {
  State& s = *state_;
  at::NoGradGuard no_grad;
  while (s.next < s.order.size()) s.reduce(s.units[s.order[s.next++]]);
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
  at::NoGradGuard no_grad;
  for (auto& u : s.units)
    if (u.persistent && s.active) {
      u.gathered = false;
      s.gather(u);
    }
}

void Zero3::gather_all() {
  at::NoGradGuard no_grad;
  for (auto& u : state_->units) state_->gather(u);
}

void Zero3::release_all(bool write_back) {
  State& s = *state_;
  at::NoGradGuard no_grad;
  for (auto& u : s.units) {
    if (write_back && u.gathered)
      for (auto& g : u.groups) {
        const int64_t begin = static_cast<int64_t>(s.rank) * g.chunk, len = std::clamp<int64_t>(g.numel - begin, 0, g.chunk);
        if (len > 0) s.shard_data.narrow(0, g.shard_offset, len).copy_(raw(g.full).narrow(0, begin, len));
      }
    s.release(u);
  }
}

void Zero3::consolidate() {
  gather_all();
  State& s = *state_;
  s.active = false;
  for (auto& u : s.units) {
    u.persistent = true;
    u.module->set_forward_hooks(nullptr);
  }
}

std::map<std::string, at::Tensor> Zero3::gather_state(const std::map<std::string, at::Tensor>& shard_state) const {
  const State& s = *state_;
  int64_t total = 0;
  for (const auto& u : s.units) total += u.numel;
  std::map<std::string, at::Tensor> out;
  for (const auto& [name, t] : shard_state) {
    if (!t.defined() || t.numel() != shard_data_.numel()) {
      out[name] = t;
      continue;
    }
    at::Tensor full = at::zeros({total}, t.options());
    for (const auto& u : s.units)
      for (const auto& g : u.groups) {
        at::Tensor in = t.narrow(0, g.shard_offset, g.chunk).contiguous();
        at::Tensor all = in;
        if (s.W > 1) {
          all = at::empty({s.W * g.chunk}, t.options());
          s.comm->all_gather(in, all);
        }
        for (const auto& p : g.pieces) full.narrow(0, p.flat_offset, p.numel).copy_(all.narrow(0, p.local, p.numel));
      }
    out[name] = full;
  }
  return out;
}

std::map<std::string, at::Tensor> Zero3::slice_state(const std::map<std::string, at::Tensor>& full_state) const {
  const State& s = *state_;
  std::map<std::string, at::Tensor> out;
  for (const auto& [name, t] : full_state) {
    at::Tensor flat = t.reshape(-1);
    at::Tensor shard = at::zeros({shard_data_.numel()}, t.options());
    for (const auto& u : s.units)
      for (const auto& g : u.groups) {
        at::Tensor v = at::zeros({s.W * g.chunk}, t.options());
        for (const auto& p : g.pieces) {
          if (p.flat_offset + p.numel > flat.numel()) throw CheckpointError("optimizer state '" + name + "' is smaller than the model");
          v.narrow(0, p.local, p.numel).copy_(flat.narrow(0, p.flat_offset, p.numel));
        }
        shard.narrow(0, g.shard_offset, g.chunk).copy_(v.narrow(0, static_cast<int64_t>(s.rank) * g.chunk, g.chunk));
      }
    out[name] = shard;
  }
  return out;
}

int64_t Zero3::resident_param_bytes() const {
  int64_t bytes = static_cast<int64_t>(shard_data_.nbytes());
  for (const auto& u : state_->units)
    if (u.gathered)
      for (const auto& g : u.groups) bytes += static_cast<int64_t>(g.full.numel() * g.full.element_size());
  return bytes;
}

std::vector<OwnedRange> Zero3::owned_ranges() const {
  const State& s = *state_;
  std::vector<OwnedRange> out;
  for (const auto& u : s.units)
    for (const auto& g : u.groups) {
      const int64_t lo = static_cast<int64_t>(s.rank) * g.chunk, hi = lo + g.chunk;  // this rank's chunk, unit-local
      for (const auto& p : g.pieces) {
        const int64_t b = std::max(lo, p.local), e = std::min(hi, p.local + p.numel);
        if (b < e) out.push_back({p.flat_offset + (b - p.local), e - b, g.shard_offset + (b - lo)});
      }
    }
  return out;
}

std::vector<Segment> Zero3::grad_segments() const {
  std::vector<Segment> out;
  const size_t groups = state_->units.empty() ? 0 : state_->units.front().groups.size();
  for (size_t gi = 0; gi < groups; ++gi)  // the shard buffer's own order: group-major
    for (const auto& u : state_->units)
      if (u.groups[gi].chunk > 0) out.push_back({u.groups[gi].shard_offset, u.groups[gi].chunk});
  return out;
}

std::vector<std::string> Zero3::unit_names() const {
  std::vector<std::string> out;
  for (const auto& u : state_->units) out.push_back(u.name);
  return out;
}

}  // namespace runner::dist
