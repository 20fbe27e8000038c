// Zero3's private state, shared by zero3.cpp (the engine: units, hooks, gathers and
// reductions) and zero3_layout.cpp (checkpoint layouts and queries). Not a public header.
#pragma once
#include <c10/core/GradMode.h>
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <torch/csrc/autograd/function.h>

#include "runtime/core/errors.h"
#include "runtime/dist/zero3.h"
#include "runtime/models/parameter_store.h"

namespace runner::dist {

namespace zero3_detail {

struct Piece {  // one parameter inside a unit-group buffer
  at::Tensor param;
  std::string name;
  int64_t flat_offset = 0, local = 0, numel = 0;
};

struct UnitGroup {
  int group = 0;
  bool frozen = false;           // parameters without gradients: gathered, never reduced
  std::vector<Piece> pieces;
  int64_t numel = 0, chunk = 0;  // values, and values per rank (padded)
  int64_t shard_offset = 0;      // where this rank's chunk sits in the shard buffer
  int64_t in_unit = 0;           // offset of this group's chunk inside the unit's block
  at::Tensor full;               // parameters are views of its storage
};

struct Unit {
  std::string name;
  models::Module* module = nullptr;
  std::vector<UnitGroup> groups;  // the optimizer's groups, then the frozen group (if any)
  int64_t chunk_total = 0, numel = 0;
  int64_t grad_total = 0;  // the trainable groups' chunks, which come first in the unit's block
  size_t n_params = 0, ready = 0;  // trainable parameters, and those whose gradient is ready
  bool gathered = false, persistent = false, seen = false;
  // Reduced, but frozen weights may still be read by backward (a LoRA base's input
  // gradient): freed when backward enters an earlier unit, or at the micro-step's end.
  bool release_pending = false;
};

// The buffer's memory as a plain tensor: writing through it does not bump the version
// counter of the parameters (autograd must not see a gather as an in-place change).
inline at::Tensor raw(const at::Tensor& t) { return at::from_blob(t.storage().mutable_data(), {t.numel()}, t.options().requires_grad(false)); }

}  // namespace zero3_detail

using namespace zero3_detail;

struct Zero3::State {
  std::shared_ptr<Communicator> comm;
  std::shared_ptr<Communicator> replicas;  // hybrid sharding: the same chunk on the other nodes
  int W = 1, rank = 0;
  std::vector<Unit> units;          // [0] is the root
  std::vector<size_t> order;        // reduction order
  size_t next = 0;
  bool active = true, first_step = true;
  Zero3Options options;  // as given: read, never copied field by field
  at::Tensor shard_data, shard_grad;  // on the host under offload
  at::TensorOptions unit_options;     // where gathered units and their gradients live
  std::vector<std::shared_ptr<torch::autograd::Node>> accumulators;
  std::vector<size_t> unit_of_param;  // accumulator index → unit
  std::vector<char> param_seen;

  // Prefetch (DeepSpeed's trace-driven coordinator, FSDP's forward/backward prefetch): the
  // first step records the order units run forward; later, when a unit starts, the next
  // ones in that order (reverse order in backward) are all-gathered without blocking, up
  // to `budget` elements (at least one unit) while at most two gathers are in flight and
  // the gathered elements stay under max_live. Every rank takes the same decisions from
  // the same trace, so collectives stay in the same order everywhere.
  struct Fetch {
    at::Tensor in, out;
    std::unique_ptr<Work> work;
  };
  std::vector<size_t> trace;   // units (not the root) in forward order
  std::vector<int> trace_pos;  // unit → position in trace, -1 when not in it
  std::map<size_t, Fetch> inflight;
  int64_t gathers = 0, prefetched = 0;  // unit gathers, and how many a prefetch had started
  // This micro-step's local gradients are a stand-in's (discard_micro_step): reduce zeros.
  bool discard = false;

  at::Tensor pack(const Unit& u) const {
    at::Tensor in = at::empty({u.chunk_total}, shard_data.options());
    for (const auto& g : u.groups) in.narrow(0, g.in_unit, g.chunk).copy_(shard_data.narrow(0, g.shard_offset, g.chunk));
    return in;
  }

  int64_t live() const {
    int64_t n = 0;
    for (size_t i = 0; i < units.size(); ++i)
      if (!units[i].persistent && (units[i].gathered || inflight.count(i))) n += units[i].numel;
    return n;
  }

  void prefetch(int64_t pos, int step, int64_t budget) {
    if (budget <= 0 || W == 1 || first_step) return;
    int64_t taken = 0;
    for (; pos >= 0 && pos < static_cast<int64_t>(trace.size()) && inflight.size() < 2; pos += step) {
      const size_t idx = trace[static_cast<size_t>(pos)];
      Unit& u = units[idx];
      if (u.gathered || inflight.count(idx)) continue;
      if ((taken > 0 && taken + u.numel > budget) || live() + u.numel > options.max_live_parameters) break;
      Fetch f;
      f.in = pack(u);
      f.out = at::empty({W * u.chunk_total}, unit_options);
      f.work = comm->all_gather_async(f.in, f.out);
      inflight.emplace(idx, std::move(f));
      taken += u.numel;
    }
  }

  // Waits for every gather in flight and drops it (its values may be stale after a step).
  void drain() {
    for (auto& [idx, f] : inflight) f.work->wait();
    inflight.clear();
  }

  void gather(Unit& u) {
    if (u.gathered) return;
    const int64_t C = u.chunk_total;
    at::Tensor out;
    auto it = inflight.find(static_cast<size_t>(&u - units.data()));
    ++gathers;
    if (it != inflight.end()) {  // prefetched: just wait for it
      ++prefetched;
      it->second.work->wait();
      out = std::move(it->second.out);
      inflight.erase(it);
    } else {
      at::Tensor in = pack(u);
      out = in;
      if (W > 1) {
        out = at::empty({W * C}, unit_options);
        comm->all_gather(in, out);
      }
    }
    for (auto& g : u.groups) {
      models::ParameterStore::refill_memory(g.full);  // its parameters' storage gets memory again
      at::Tensor dst = raw(g.full);
      for (int r = 0; r < W; ++r) {
        const int64_t begin = r * g.chunk, len = std::clamp<int64_t>(g.numel - begin, 0, g.chunk);
        if (len > 0) dst.narrow(0, begin, len).copy_(out.narrow(0, r * C + g.in_unit, len));
      }
    }
    u.gathered = true;
  }

  // The gathered unit's values (changed in place: a loaded checkpoint) into this rank's chunks.
  void write_back(const Unit& u) {
    for (const auto& g : u.groups) {
      const int64_t begin = static_cast<int64_t>(rank) * g.chunk, len = std::clamp<int64_t>(g.numel - begin, 0, g.chunk);
      if (len > 0) shard_data.narrow(0, g.shard_offset, len).copy_(raw(g.full).narrow(0, begin, len));
    }
  }

  void release(Unit& u) {
    if (!u.gathered || u.persistent) return;
    for (auto& g : u.groups) models::ParameterStore::release_memory(g.full);  // views keep the storage, not the memory
    u.gathered = false;
    u.release_pending = false;
  }

  // Reduce-scatter the unit's gradients (rank-major blocks of every trainable group), keep
  // this rank's chunk, release the .grad tensors and the unit. A unit with frozen weights
  // is released later: its gradients being ready does not mean backward is done with them
  // (the frozen weight's input gradient is a node of its own in autograd's graph).
  void reduce(Unit& u) {
    if (u.grad_total > 0) reduce_grads(u);
    if (u.groups.back().frozen && u.groups.back().numel > 0) u.release_pending = true;
    else release(u);
    const size_t idx = static_cast<size_t>(&u - units.data());
    if (options.backward_post && trace_pos[idx] >= 0) prefetch(trace_pos[idx] - 1, -1, options.prefetch_backward);
  }

  // Backward is entering unit `idx`: it is done with every unit that ran later in forward
  // (autograd runs a later-created node before an earlier one, parallel branches included),
  // so those whose release waited can go. A waiting unit backward has not reached yet keeps
  // waiting: it is gathered when backward enters it and released after.
  void release_waiting(size_t idx) {
    const int here = trace_pos[idx];
    if (here < 0) return;
    for (size_t i = 0; i < units.size(); ++i)
      if (units[i].release_pending && trace_pos[i] > here) release(units[i]);
  }

  void reduce_grads(Unit& u) {
    const int64_t C = u.grad_total;
    at::Tensor in = at::zeros({W * C}, unit_options);  // the gradients are where the unit ran
    for (auto& g : u.groups) {
      if (g.frozen) continue;
      at::Tensor v = at::zeros({W * g.chunk}, in.options());
      for (auto& p : g.pieces) {
        at::Tensor& grad = p.param.mutable_grad();
        if (grad.defined() && !discard) v.narrow(0, p.local, p.numel).copy_(grad.reshape(-1));
        grad = at::Tensor();
      }
      for (int r = 0; r < W; ++r) in.narrow(0, r * C + g.in_unit, g.chunk).copy_(v.narrow(0, r * g.chunk, g.chunk));
    }
    if (options.ordered) {
      // Every rank's piece of this rank's chunk, added in rank order (ordered_reduce.h).
      const at::Tensor blocks = exchange_blocks(*comm, in).to(shard_grad.device());
      for (auto& g : u.groups)
        if (!g.frozen)
          for (int r = 0; r < W; ++r) shard_grad.narrow(0, g.shard_offset, g.chunk).add_(blocks.narrow(0, r * C + g.in_unit, g.chunk));
    } else {
      at::Tensor out = in;
      if (W > 1) {
        out = at::empty({C}, in.options());
        comm->reduce_scatter(in, out);
      }
      if (replicas && replicas->size() > 1) replicas->all_reduce(out, ReduceOp::kSum);  // HYBRID_SHARD
      out = out.to(shard_grad.device());  // offload: this rank's chunk goes to the host
      for (auto& g : u.groups)
        if (!g.frozen) shard_grad.narrow(0, g.shard_offset, g.chunk).add_(out.narrow(0, g.in_unit, g.chunk));
    }
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
    c10::NoGradGuard no_grad;
    // Until a first step has shown which units really run through their hooks, the model's
    // forward starts with everything gathered.
    if (idx == 0 && first_step && options.verify_units())
      for (auto& v : units) gather(v);
    if (idx != 0 && first_step && trace_pos[idx] < 0) {
      trace_pos[idx] = static_cast<int>(trace.size());
      trace.push_back(idx);
    }
    gather(u);
    if (idx == 0 || trace_pos[idx] >= 0) prefetch(idx == 0 ? 0 : trace_pos[idx] + 1, +1, options.prefetch_forward);
  }

  void post(size_t idx, const std::vector<at::Tensor>& outputs, const std::weak_ptr<State>& weak) {
    if (!active || idx == 0) return;  // the root stays gathered until backward is over
    if (c10::GradMode::is_enabled()) {
      for (const auto& o : outputs)
        if (o.defined() && o.requires_grad())
          o.register_hook([weak, idx](const at::TensorBase&) {
            if (auto st = weak.lock(); st && st->active) {
              c10::NoGradGuard no_grad;
              st->release_waiting(idx);
              st->gather(st->units[idx]);  // backward is about to enter the unit
              if (!st->options.backward_post && st->trace_pos[idx] >= 0) st->prefetch(st->trace_pos[idx] - 1, -1, st->options.prefetch_backward);
            }
          });
    }
    release(units[idx]);
  }
};


}  // namespace runner::dist
