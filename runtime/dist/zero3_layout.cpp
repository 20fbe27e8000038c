// Zero3's layout queries: optimizer state in the full flat layout and back (checkpoints),
// this rank's owned ranges and gradient segments, memory and gather counts.
#include "runtime/dist/zero3.h"

#include "runtime/dist/zero3_state.h"

namespace runner::dist {

std::map<std::string, at::Tensor> Zero3::gather_state(const std::map<std::string, at::Tensor>& shard_state, bool keep) const {
  const State& s = *state_;
  int64_t total = 0;
  for (const auto& u : s.units)
    for (const auto& g : u.groups)
      if (!g.frozen) total += g.numel;
  std::map<std::string, at::Tensor> out;
  for (const auto& [name, t] : shard_state) {
    if (!t.defined() || t.numel() != shard_->numel()) {
      if (keep) out[name] = t;
      continue;
    }
    at::Tensor full = keep ? at::zeros({total}, t.options().device(at::kCPU)) : at::Tensor();
    for (const auto& u : s.units)
      for (const auto& g : u.groups) {
        if (g.frozen) continue;  // the optimizer's state covers trainable parameters only
        at::Tensor in = t.narrow(0, g.shard_offset, g.chunk).contiguous();
        at::Tensor all = in;
        if (s.W > 1) {
          all = at::empty({s.W * g.chunk}, t.options());
          s.comm->all_gather(in, all);
        }
        if (keep)
          for (const auto& p : g.pieces) full.narrow(0, p.flat_offset, p.numel).copy_(all.narrow(0, p.local, p.numel));
      }
    if (keep) out[name] = full;
  }
  return out;
}

std::map<std::string, at::Tensor> Zero3::slice_state(const std::map<std::string, at::Tensor>& full_state) const {
  const State& s = *state_;
  std::map<std::string, at::Tensor> out;
  for (const auto& [name, t] : full_state) {
    at::Tensor flat = t.reshape(-1);
    at::Tensor shard = at::zeros({shard_->numel()}, t.options());
    for (const auto& u : s.units)
      for (const auto& g : u.groups) {
        if (g.frozen) continue;
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

namespace {
// Bytes of the shard buffer's frozen or trainable part on the device, plus those groups of
// the units gathered now.
int64_t param_bytes(const Zero3::State& s, const at::Tensor& shard_data, bool frozen) {
  const bool on_device = shard_data.device() == s.unit_options.device();  // not offloaded
  int64_t bytes = 0;
  for (const auto& u : s.units)
    for (const auto& g : u.groups) {
      if (g.frozen != frozen) continue;
      if (on_device) bytes += g.chunk * static_cast<int64_t>(shard_data.element_size());
      if (u.gathered) bytes += g.numel * static_cast<int64_t>(g.full.element_size());
    }
  return bytes;
}
}  // namespace

int64_t Zero3::resident_param_bytes() const { return param_bytes(*state_, shard_data_, /*frozen=*/false); }
int64_t Zero3::frozen_param_bytes() const { return param_bytes(*state_, shard_data_, /*frozen=*/true); }

bool Zero3::shards(const at::Tensor& param) const {
  for (const auto& u : state_->units)
    for (const auto& g : u.groups)
      for (const auto& p : g.pieces)
        if (p.param.is_same(param)) return true;
  return false;
}

std::pair<int64_t, int64_t> Zero3::gather_counts() const { return {state_->gathers, state_->prefetched}; }

std::vector<OwnedRange> Zero3::owned_ranges() const {
  const State& s = *state_;
  std::vector<OwnedRange> out;
  for (const auto& u : s.units)
    for (const auto& g : u.groups) {
      if (g.frozen) continue;
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
      if (!u.groups[gi].frozen && u.groups[gi].chunk > 0) out.push_back({u.groups[gi].shard_offset, u.groups[gi].chunk});
  return out;
}

std::vector<std::string> Zero3::unit_names() const {
  std::vector<std::string> out;
  for (const auto& u : state_->units) out.push_back(u.name);
  return out;
}


}  // namespace runner::dist
