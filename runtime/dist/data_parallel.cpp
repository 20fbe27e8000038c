#include "runtime/dist/data_parallel.h"

#include <algorithm>
#include <cmath>

#include "runtime/core/errors.h"
#include "runtime/dist/communicator.h"
#include "runtime/dist/grad_reducer.h"
#include "runtime/dist/optimizer_offload.h"
#include "runtime/dist/ordered_reduce.h"
#include "runtime/dist/partition.h"
#include "runtime/dist/zero3.h"
#include "runtime/models/parameter_store.h"
#include <c10/core/GradMode.h>

namespace runner::dist {

DataParallel::DataParallel(std::shared_ptr<Communicator> comm, ParallelConfig config)
    : comm_(comm ? std::move(comm) : make_local_communicator()), config_(std::move(config)) {
  if (config_.zero_stage < 0 || config_.zero_stage > 3)
    throw ArgumentError("ZeRO stage " + std::to_string(config_.zero_stage) + " does not exist (0, 1, 2 or 3)");
  shard_comm_ = config_.shard_group ? config_.shard_group : comm_;
  if (hybrid() && config_.ordered_reduction)
    throw ArgumentError("full_determinism with hybrid_shard across nodes is not implemented (its ordered sums assume one shard group); use full_shard");
}

DataParallel::~DataParallel() = default;

int DataParallel::rank() const { return comm_->rank(); }
int DataParallel::world() const { return comm_->size(); }

void DataParallel::broadcast_model(models::Module& model) {
  c10::NoGradGuard no_grad;
  const bool flat = full_->data().defined();
  if (flat) comm_->broadcast(full_->data(), 0);
  // Frozen parameters and buffers are not in the flat buffer (under ZeRO-3 nothing is).
  // Parameters still in their files are read from the same files on every rank, so
  // they need no broadcast; recipe code may have loaded them on some ranks only, so the
  // ranks first agree on which those are (else they would pair different broadcasts).
  const models::NamedTensorList state = model.state_dict();
  at::Tensor in_files = at::zeros({static_cast<int64_t>(state.size())}, at::kFloat);
  const models::StoreList stores = models::stores_in(model);
  for (size_t i = 0; i < state.size(); ++i)
    if (models::in_file(stores, state[i].second)) in_files[static_cast<int64_t>(i)] = 1.0;
  comm_->all_reduce(in_files, ReduceOp::kSum);
  const auto skip = in_files.accessor<float, 1>();
  for (size_t i = 0; i < state.size(); ++i) {
    const at::Tensor& t = state[i].second;
    if (skip[static_cast<int64_t>(i)] > 0) continue;
    if (flat && t.is_contiguous() && t.data_ptr() >= full_->data().data_ptr() &&
        static_cast<char*>(t.data_ptr()) < static_cast<char*>(full_->data().data_ptr()) + full_->data().nbytes())
      continue;
    at::Tensor c = t.contiguous();
    comm_->broadcast(c, 0);
    if (!c.is_same(t)) t.copy_(c);
  }
  for (auto& [name, b] : model.named_buffers()) buffers_.push_back(b);
}

optim::FlatParams& DataParallel::attach(optim::FlatParams& full, models::Module& model) {
  optim::FlatParams& owned = attach_owned(full, model);
  // Offloaded ZeRO-3 shards are host memory already: the optimizer runs there as it is.
  if (!config_.offload_optimizer || (zero3_ && config_.zero3.offload)) return owned;
  offload_ = std::make_unique<OptimizerOffload>(owned, config_.pin_optimizer_offload);
  return offload_->host();
}

optim::FlatParams& DataParallel::attach_owned(optim::FlatParams& full, models::Module& model) {
  full_ = &full;
  if (world() > 1) broadcast_model(model);
  if (config_.zero_stage == 3) {
    Zero3Options o = config_.zero3;
    o.ordered = config_.ordered_reduction;
    zero3_ = std::make_unique<Zero3>(shard_comm_, full, model, o, config_.replica_group);
    return zero3_->optimizer_params();
  }
  const bool ordered = config_.ordered_reduction;
  const Partition part = make_partition(full.numel(), shard_world(), shard_rank(), ordered ? kOrderedChunk : 2);
  begin_ = config_.zero_stage >= 1 ? part.begin() : 0;
  end_ = config_.zero_stage >= 1 ? part.end() : full.numel();
  shard_size_ = config_.zero_stage >= 1 ? part.shard : full.numel();
  padded_ = part.padded();
  if (ordered) {
    // Every stage folds into a shard of the (padded) flat gradient; DDP gathers it back.
    shard_grad_ = at::zeros({part.shard}, full.data().options());
    if (config_.zero_stage == 0) return full;
    shard_ = optim::FlatParams::shard_of(full, begin_, end_, shard_grad_.narrow(0, 0, end_ - begin_));
    return *shard_;
  }
  if (config_.zero_stage >= 2) shard_grad_ = at::zeros({end_ - begin_}, full.data().options());

  if (world() > 1 || config_.zero_stage >= 2) {
    std::vector<BucketParam> params;
    for (const auto& s : full.slots()) params.push_back({s.name, s.param, s.offset, s.numel});
    ReducerOptions o;
    o.bucket_cap_bytes = config_.bucket_cap_bytes;
    o.first_bucket_bytes = std::min<int64_t>(1 << 20, config_.bucket_cap_bytes);
    if (config_.zero_stage >= 2) {
      // Keep only this rank's slice of each reduced bucket, accumulated over micro-steps.
      o.on_reduced = [this](int64_t offset, const at::Tensor& reduced) {
        const int64_t b = std::max(offset, begin_), e = std::min(offset + reduced.numel(), end_);
        if (b < e) shard_grad_.narrow(0, b - begin_, e - b).add_(reduced.narrow(0, b - offset, e - b));
      };
    } else {
      o.flat_grad = full.grad();
      // Each window's first gradient is copied into the buffer instead of added to zeros (8
      // bytes per parameter and step instead of 16). Its hooks go first, so a bucket whose
      // parameters are all ready reduces written slots; the slots of parameters no gradient
      // reached are zeroed before the rest of the buckets go.
      full.write_grads_on_first_accumulation();
      o.before_leftovers = [&full] { full.ensure_grad_views(); };
    }
    reducer_ = std::make_unique<GradReducer>(comm_, std::move(params), std::move(o));
  }
  if (config_.zero_stage == 0) return full;
  at::Tensor grad = config_.zero_stage >= 2 ? shard_grad_ : full.grad().narrow(0, begin_, end_ - begin_);
  shard_ = optim::FlatParams::shard_of(full, begin_, end_, grad);
  return *shard_;
}

void DataParallel::check_optimizer(const optim::Optimizer& optimizer) const {
  if (config_.zero_stage >= 1 && optimizer.name() == "adafactor")
    throw ArgumentError("optim: adafactor factors whole weight matrices, but ZeRO stage " + std::to_string(config_.zero_stage) +
                        " shards cut through parameters; use adamw, sgd, adagrad or rmsprop, or ZeRO stage 0");
}

void DataParallel::begin_micro_step(bool last) {
  last_micro_step_ = last;
  if (zero3_) zero3_->begin_micro_step();
  if (reducer_) reducer_->prepare(last || config_.zero_stage >= 2);
  if (last && config_.broadcast_buffers && world() > 1)
    for (auto& b : buffers_) comm_->broadcast(b, 0);
}

void DataParallel::discard_micro_step() {
  if (zero3_) zero3_->discard_micro_step();
}

void DataParallel::end_micro_step() {
  if (reducer_) reducer_->finish();
  if (config_.ordered_reduction && !zero3_) ordered_fold();
  if (zero3_) zero3_->end_micro_step();
}

void DataParallel::ordered_fold() {
  c10::NoGradGuard no_grad;
  at::Tensor& grad = full_->grad();
  at::Tensor send = grad;
  if (padded_ != grad.numel()) {
    send = at::zeros({padded_}, grad.options());
    send.narrow(0, 0, grad.numel()).copy_(grad);
  }
  ordered_reduce_scatter_add(*comm_, send, shard_grad_);
  grad.zero_();
  if (config_.zero_stage == 0 && last_micro_step_) {  // DDP's optimizer wants the whole gradient
    at::Tensor all = shard_grad_;
    if (world() > 1) {
      all = at::empty({padded_}, grad.options());
      comm_->all_gather(shard_grad_, all);
    }
    grad.copy_(all.narrow(0, 0, grad.numel()));
  }
}

void DataParallel::visit_whole(const std::vector<at::Tensor>& tensors, const std::function<void(size_t, bool)>& visit, bool write_back) {
  if (write_back && offload_) offload_->mark_stale();  // loaded weights: refresh the host master copy
  if (zero3_) return zero3_->visit_whole(tensors, visit, write_back);
  for (size_t i = 0; i < tensors.size(); ++i) visit(i, false);
}

void DataParallel::release_after_forward() {
  if (zero3_) zero3_->release_all(/*write_back=*/false);
}

void DataParallel::hold_whole_params(bool on) {
  if (zero3_) zero3_->hold_whole(on);
}

namespace {

// torch.nn.utils.clip_grad_norm_'s factor min(1, max_norm / (norm + 1e-6)), in the norm's
// dtype on its device (so no step waits for its value); undefined without clipping.
at::Tensor clip_coef(const at::Tensor& norm, double max_norm) {
  if (max_norm <= 0) return at::Tensor();
  return at::full({}, max_norm, norm.options()).div_(norm + 1e-6).clamp_max_(1.0);
}

// What the separate passes would multiply the gradients by, unscale · coef (coef: torch's
// clip factor in the norm's dtype, undefined without clipping), as the divisor a fused
// optimizer takes: its reciprocal, () fp32 on the gradients' device. Undefined when there is
// nothing to scale.
at::Tensor clip_divisor(const at::Tensor& coef, double unscale, const at::TensorOptions& grads) {
  if (coef.defined()) return coef.to(at::kDouble).mul(unscale).reciprocal().to(at::kFloat);
  if (unscale != 1.0) return at::full({}, 1.0 / unscale, grads.dtype(at::kFloat));
  return at::Tensor();
}

}  // namespace

at::Tensor DataParallel::clip_grad_norm(double max_norm, double unscale, at::Tensor* divisor) {
  c10::NoGradGuard no_grad;
  at::Tensor norm;  // () fp64, on the gradients' device
  at::Tensor g;
  if (config_.ordered_reduction) {
    at::Tensor& folded = zero3_ ? zero3_->shard_grad() : shard_grad_;
    const std::vector<Segment> segments = zero3_ ? zero3_->grad_segments() : std::vector<Segment>{{0, shard_grad_.numel()}};
    g = config_.zero_stage == 0 ? full_->grad() : folded;
    if (unscale != 1.0) {
      folded.mul_(unscale);
      if (!g.is_same(folded)) g.mul_(unscale);
    }
    // full_determinism sums on the host in a fixed order anyway (a wait per step is its price)
    const double host_norm = std::sqrt(ordered_sum_of_squares(*comm_, folded, segments));
    const double coef = max_norm / (host_norm + 1e-6);
    if (max_norm > 0 && coef < 1.0) g.mul_(coef);
    return at::scalar_tensor(host_norm, g.options().dtype(at::kDouble));
  } else if (config_.zero_stage >= 2) {
    g = zero3_ ? zero3_->shard_grad() : shard_grad_;
    if (unscale != 1.0 && !divisor) g.mul_(unscale);
    // Sum of squares in double, chunk by chunk: a whole-shard double copy would cost 8 bytes
    // per parameter of peak memory.
    at::Tensor sq = at::zeros({}, g.options().dtype(at::kDouble));
    for (int64_t b = 0; b < g.numel(); b += int64_t{1} << 22)
      sq.add_(g.narrow(0, b, std::min<int64_t>(int64_t{1} << 22, g.numel() - b)).to(at::kDouble).pow(2).sum());
    // Over the shard group only: under hybrid sharding the other nodes hold the same shards.
    if (shard_world() > 1) shard_comm_->all_reduce(sq, ReduceOp::kSum);
    norm = sq.sqrt();
    if (unscale != 1.0 && divisor) norm.mul_(unscale);  // exact for a power-of-two loss scale
  } else {
    // Parameter by parameter, as torch.nn.utils.clip_grad_norm_ (foreach): the same numbers
    // whether the gradients sit in the flat buffer (identical on every rank after the
    // all-reduce) or where autograd left them (FlatParams::leave_grads_to_autograd).
    std::vector<at::Tensor> grads = full_->slot_grads();
    if (unscale != 1.0 && !divisor) at::_foreach_mul_(grads, unscale);
    at::Tensor norm32 = at::linalg_vector_norm(at::stack(at::_foreach_norm(grads)), 2);
    // The norm of the scaled gradients, unscaled: equal bit for bit to the norm of the
    // unscaled ones when the scale is a power of two, as fp16's dynamic scale is.
    if (unscale != 1.0 && divisor) norm32.mul_(unscale);
    const at::Tensor coef = clip_coef(norm32, max_norm);
    if (divisor) *divisor = clip_divisor(coef, unscale, grads.front().options());
    else if (coef.defined()) at::_foreach_mul_(grads, coef);
    return norm32.to(at::kDouble);
  }
  // The factor in the gradients' dtype, as torch's (whose norm is in theirs): a multiply on CUDA
  // reads a 0-dim device factor in the tensor's dtype, the CPU's reads it in float, and the
  // folded divisor must invert the very factor the pass would use.
  at::Tensor coef = clip_coef(norm, max_norm);
  if (coef.defined()) coef = coef.to(g.scalar_type());
  if (divisor) *divisor = clip_divisor(coef, unscale, g.options());
  else if (coef.defined()) g.mul_(coef);
  return norm;
}

void DataParallel::before_optimizer_step() {
  if (offload_) offload_->to_host();
}

void DataParallel::after_optimizer_step() {
  if (offload_) offload_->to_device();
  if (zero3_) return zero3_->after_optimizer_step();
  if (config_.zero_stage == 0 || shard_world() == 1) return;
  c10::NoGradGuard no_grad;
  at::Tensor& data = full_->data();
  gather_slices(data.narrow(0, begin_, end_ - begin_), &data, /*own=*/false, config_.allgather_bucket_elems);
}

void DataParallel::gather_slices(const at::Tensor& mine, at::Tensor* dst, bool own, int64_t bucket) const {
  const int64_t n = full_->numel(), W = shard_world();
  const int64_t chunk = std::max<int64_t>(1, std::min(shard_size_, bucket));
  for (int64_t off = 0; off < shard_size_; off += chunk) {
    const int64_t c = std::min(chunk, shard_size_ - off);
    at::Tensor in = at::zeros({c}, mine.options());
    const int64_t have = std::clamp<int64_t>(mine.numel() - off, 0, c);
    if (have > 0) in.narrow(0, 0, have).copy_(mine.narrow(0, off, have));
    at::Tensor out = at::empty({W * c}, mine.options());
    shard_comm_->all_gather(in, out);
    if (!dst) continue;
    for (int64_t r = 0; r < W; ++r) {
      const int64_t at = r * shard_size_ + off;
      const int64_t len = std::clamp<int64_t>(n - at, 0, c);
      if (len > 0 && (own || r != shard_rank())) dst->narrow(0, at, len).copy_(out.narrow(0, r * c, len));
    }
  }
}

void DataParallel::zero_grad() {
  full_->zero_grad();
  if (shard_grad_.defined()) shard_grad_.zero_();
  if (zero3_) zero3_->shard_grad().zero_();
}

std::map<std::string, at::Tensor> DataParallel::gather_optimizer_state(const optim::Optimizer& optimizer, bool keep) const {
  std::map<std::string, at::Tensor> out = optimizer.state_tensors();
  if (zero3_) return zero3_->gather_state(out, keep);
  if (config_.zero_stage == 0 || shard_world() == 1) return keep ? out : std::map<std::string, at::Tensor>{};
  // At most 64 Mi values gathered at a time (256 MiB of fp32 on the device), whatever
  // allgather_bucket_size says: a save should not need the step's memory.
  const int64_t bucket = std::min<int64_t>(config_.allgather_bucket_elems, (int64_t{1} << 26) / shard_world());
  c10::NoGradGuard no_grad;
  for (auto& [name, t] : out) {
    if (t.numel() != end_ - begin_)
      throw CheckpointError("optimizer state '" + name + "' is not per element; it cannot be gathered from ZeRO shards");
    at::Tensor host = keep ? at::empty({full_->numel()}, t.options().device(at::kCPU)) : at::Tensor();
    gather_slices(t.reshape(-1), keep ? &host : nullptr, /*own=*/true, bucket);
    t = host;
  }
  if (!keep) out.clear();
  return out;
}

std::map<std::string, at::Tensor> DataParallel::slice_optimizer_state(const std::map<std::string, at::Tensor>& full) const {
  if (config_.zero_stage == 0) return full;
  if (zero3_) return zero3_->slice_state(full);
  std::map<std::string, at::Tensor> out;
  for (const auto& [name, t] : full) {
    if (t.numel() != full_->numel()) {
      out[name] = t;  // not per element: the optimizer's own check reports it
      continue;
    }
    out[name] = t.reshape(-1).narrow(0, begin_, end_ - begin_);
  }
  return out;
}

std::vector<OwnedRange> DataParallel::owned_ranges() const {
  if (zero3_) return zero3_->owned_ranges();
  return {{begin_, end_ - begin_, 0}};
}

int64_t DataParallel::model_state_bytes(const optim::Optimizer& optimizer) const {
  const bool shards_on_host = zero3_ && config_.zero3.offload && !full_->slots().front().param.device().is_cpu();
  int64_t bytes = zero3_ ? zero3_->resident_param_bytes() + (shards_on_host ? 0 : static_cast<int64_t>(zero3_->shard_grad().nbytes()))
                         : static_cast<int64_t>(full_->data().nbytes());
  if (full_->has_grad_buffer()) bytes += static_cast<int64_t>(full_->grad().nbytes());
  if (full_->leaves_grads_to_autograd()) bytes += static_cast<int64_t>(full_->data().nbytes());  // held from backward to the step
  if (shard_grad_.defined()) bytes += static_cast<int64_t>(shard_grad_.nbytes());
  if (offload_ || shards_on_host) return bytes;  // the optimizer's state is in host memory
  for (const auto& [name, t] : optimizer.state_tensors())
    if (t.defined()) bytes += static_cast<int64_t>(t.nbytes());
  return bytes;
}

int64_t DataParallel::frozen_param_bytes(const models::Module& model) const {
  int64_t bytes = zero3_ ? zero3_->frozen_param_bytes() : 0;
  for (const auto& [name, p] : model.named_parameters())
    if (!p.requires_grad() && !(zero3_ && zero3_->shards(p))) bytes += static_cast<int64_t>(p.nbytes());
  return bytes;
}

void DataParallel::sum(std::vector<double>& values) const {
  if (world() == 1 || values.empty()) return;
  at::Tensor t = at::from_blob(values.data(), {static_cast<int64_t>(values.size())}, at::kDouble);
  comm_->all_reduce(t, ReduceOp::kSum);
}

std::vector<double> DataParallel::gather(double value) const {
  if (world() == 1) return {value};
  const at::Tensor all = all_gather_rows(at::full({1}, value, at::kDouble));  // (world, 1)
  return std::vector<double>(all.data_ptr<double>(), all.data_ptr<double>() + world());
}

at::Tensor DataParallel::all_gather_rows(const at::Tensor& values) const {
  at::Tensor in = values.contiguous();
  at::Tensor out = at::empty({world() * in.numel()}, in.options());
  comm_->all_gather(in, out);
  return out.view({world(), in.numel()});
}

void DataParallel::barrier() const {
  if (world() > 1) comm_->barrier();
}
std::string DataParallel::backend() const { return comm_->backend(); }

double DataParallel::comm_seconds() const { return comm_->stats().seconds; }
int64_t DataParallel::comm_bytes() const { return comm_->stats().bytes; }
std::pair<int64_t, int64_t> DataParallel::gather_counts() const { return zero3_ ? zero3_->gather_counts() : std::pair<int64_t, int64_t>{0, 0}; }

}  // namespace runner::dist
