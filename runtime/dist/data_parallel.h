// Data-parallel training for the Trainer, one object whatever the mode:
//   zero_stage 0  DDP: every rank holds everything; gradients all-reduced (SUM) in buckets
//                 overlapped with backward, only on the last micro-step of a window.
//   zero_stage 1  + optimizer state sharded: rank r updates only its slice of the flat
//                 parameters, then the slices are all-gathered (DeepSpeed stage 1).
//   zero_stage 2  + gradients sharded: every micro-step's gradients are reduced bucket by
//                 bucket and only this rank's slice is kept (DeepSpeed stage 2, FSDP
//                 SHARD_GRAD_OP).
//   zero_stage 3  + parameters sharded and gathered per unit while it computes
//                 (DeepSpeed stage 3, FSDP FULL_SHARD): see zero3.h.
// A single process is the same object over a world of one, so the Trainer has one path.
// Losses are weighted by the global item count (DESIGN.md), so a SUM of gradients over
// ranks is the gradient of the global batch: N ranks × batch B equals 1 process × N·B.
#pragma once
#include <functional>
#include <map>
#include <utility>
#include <memory>
#include <string>
#include <vector>

#include <ATen/ATen.h>

#include "runtime/models/module.h"
#include "runtime/optim/flat_params.h"
#include "runtime/optim/optimizer.h"

#include "runtime/dist/communicator.h"
#include "runtime/dist/partition.h"
#include "runtime/dist/zero3_options.h"

namespace runner::dist {

class GradReducer;
class OptimizerOffload;
class Zero3;

struct ParallelConfig {
  int zero_stage = 0;
  int64_t bucket_cap_bytes = 25 << 20;           // ddp_bucket_cap_mb / reduce_bucket_size
  int64_t allgather_bucket_elems = 500000000;     // allgather_bucket_size
  bool broadcast_buffers = true;                  // ddp_broadcast_buffers
  std::string description = "ddp";               // for the start-up log line
  // ZeRO-3 / FULL_SHARD: units, prefetching, parameter offload (zero3_options.h).
  Zero3Options zero3;
  // full_determinism: gradients summed slice by slice in a fixed order (ordered_reduce.h),
  // so results are bit-identical for any world size; costs an exchange per micro-step.
  bool ordered_reduction = false;
  // ZeRO-Offload / FSDP offload: the optimizer's master weights, gradients and state in host
  // memory, the step on the CPU (optimizer_offload.h).
  bool offload_optimizer = false;
  // Page-locked host buffers for the offloaded optimizer (faster copies to and from a GPU;
  // no effect on a CPU run): DeepSpeed's offload pin_memory, FSDP's CPU offload (pinned).
  bool pin_optimizer_offload = true;
  // FSDP HYBRID_SHARD (zero_stage 3) / _HYBRID_SHARD_ZERO2 (zero_stage 2): shard over
  // `shard_group` (the node's ranks) and sum gradients over `replica_group` too (the ranks
  // with the same local rank on the other nodes, which hold the same shard), so each node
  // holds one copy of the states, 1/local_size per rank. Null: shard over the whole world.
  // `hybrid_shard`: the run asked for it across nodes; the groups are made where the world
  // is known (prepare_run).
  bool hybrid_shard = false;
  std::shared_ptr<Communicator> shard_group, replica_group;
};

class DataParallel {
 public:
  DataParallel(std::shared_ptr<Communicator> comm, ParallelConfig config);
  ~DataParallel();

  int rank() const;
  int world() const;
  // The ranks this rank's shard is cut among: the world, or its node under hybrid sharding.
  int shard_rank() const { return shard_comm_->rank(); }
  int shard_world() const { return shard_comm_->size(); }
  std::string backend() const;  // "mpi", "nccl" or "local" (a world of one that copies)
  const ParallelConfig& config() const { return config_; }
  // Whether FlatParams should hold a full flat gradient (not under ZeRO-2, which reduces
  // bucket by bucket, unless the ordered reduction exchanges the whole gradient).
  bool full_grad_buffer() const { return config_.zero_stage < 2 || (config_.ordered_reduction && config_.zero_stage == 2); }
  // Whether FlatParams should move the parameters into one flat buffer (not under ZeRO-3,
  // which lays them out per unit).
  bool full_data_buffer() const { return config_.zero_stage < 3; }
  // Whether nothing reads the flat gradient before the step's clipping: one process without
  // sharding (DDP's buckets, the ZeRO stages and the ordered reduction read it while backward
  // fills it). Then the trainer decides how gradients are kept (FlatParams); DDP and ZeRO-1
  // over several ranks write each window's first gradient into the buffer themselves (attach).
  bool flat_gradient_read_only_at_the_step() const {
    return world() == 1 && config_.zero_stage == 0 && !config_.ordered_reduction;
  }

  // Makes every rank start from rank 0's weights and buffers, sets up gradient reduction
  // and returns the FlatParams the optimizer owns (all of `full`, or this rank's shard).
  optim::FlatParams& attach(optim::FlatParams& full, models::Module& model);
  // Refuses optimizers whose state is not per element under ZeRO (shards cut parameters).
  void check_optimizer(const optim::Optimizer& optimizer) const;

  // Around each micro-step's forward/backward; `last` = the window's last micro-step.
  void begin_micro_step(bool last);
  void end_micro_step();
  // Global gradient norm before clipping (all shards), clipping to max_norm when > 0.
  // `unscale` first multiplies this rank's gradients (fp16 loss scaling: 1 / scale), so
  // the norm, the clipping and the step see true gradients; a non-finite norm means some
  // rank's gradients overflowed.
  // Returned as a 0-dim fp64 tensor on the gradients' device, read only when needed.
  // With `divisor` the gradients are left as they are (neither unscaled nor clipped) where
  // the passes would scale them on the device: *divisor = 1 / (unscale · min(1, max_norm /
  // (norm + 1e-6))), () fp32 on that device, for an optimizer that folds it into its pass
  // (Optimizer::folds_gradient_divisor); undefined when nothing scales them. The host-summed
  // norm of ordered_reduction still unscales and clips here and leaves *divisor undefined.
  at::Tensor clip_grad_norm(double max_norm, double unscale = 1.0, at::Tensor* divisor = nullptr);
  void before_optimizer_step();  // offload: gradients to the host
  void after_optimizer_step();   // offload: parameters back; ZeRO: all-gather the updated slices
  void zero_grad();
  // ZeRO-3 runs collectives inside forward and backward, so a rank with no examples in a
  // micro-step must still run one (on any batch, with zero weight) to keep in step.
  bool lockstep() const { return config_.zero_stage == 3 && world() > 1; }
  // The current micro-step's backward is such a stand-in (no examples, or only ignored
  // labels): this rank contributes zeros to the reduction whatever its gradients hold, so a
  // non-finite stand-in loss (0/0) cannot reach the other ranks.
  void discard_micro_step();
  // Calls visit(i, transient) for each of `tensors` (the model's parameters and buffers, as
  // a state dict lists them) while its value is whole on this rank: under ZeRO-3 a unit at a
  // time (Zero3::visit_whole: a rank never holds more than one unit beyond its shard, so a
  // model that trains only sharded also saves and loads; `transient`: the memory goes after
  // the call), each unit's values copied back into this rank's shard after its calls when
  // `write_back` (visit loaded them). Collective.
  void visit_whole(const std::vector<at::Tensor>& tensors, const std::function<void(size_t, bool)>& visit, bool write_back);
  // ZeRO-3: frees what a forward-only loop (evaluation, prediction) left gathered: the root
  // unit, which training frees only when a micro-step's backward ends. No collective.
  void release_after_forward();
  // ZeRO-3: every parameter whole on this rank and the sharding hooks paused while `on`, so
  // the model can run forwards in any order without collectives (generation); collective at
  // both ends. No-op for the other stages.
  void hold_whole_params(bool on);

  // Checkpoints are world-size independent: the full flat state is gathered for saving and
  // sliced when loading. Both are collective. The gathered state is returned where `keep`
  // (the writer), empty elsewhere: sharded state is gathered a bounded piece at a time into
  // host memory, so no rank holds the whole state on its device and only keepers hold it at
  // all; unsharded state is this rank's own tensors.
  std::map<std::string, at::Tensor> gather_optimizer_state(const optim::Optimizer& optimizer, bool keep) const;
  std::map<std::string, at::Tensor> slice_optimizer_state(const std::map<std::string, at::Tensor>& full) const;
  // Whether this rank holds only a shard of the optimizer state (ZeRO ≥ 1 over > 1 rank),
  // and which values of the flat layout it holds (per-rank checkpoint files).
  // Hybrid sharding saves the gathered state (each node's ranks gather their node's copy).
  bool sharded_state() const { return config_.zero_stage >= 1 && world() > 1 && !hybrid(); }
  std::vector<OwnedRange> owned_ranges() const;
  // Bytes of parameters, gradients and optimizer state this rank holds (ZeRO's model states).
  int64_t model_state_bytes(const optim::Optimizer& optimizer) const;
  // Bytes of frozen parameters (a LoRA model's base) this rank holds: ZeRO-3 shards them.
  int64_t frozen_param_bytes(const models::Module& model) const;

  // Small collectives for the training loop.
  void sum(std::vector<double>& values) const;
  // Every rank's value, in rank order.
  std::vector<double> gather(double value) const;
  // Every rank's copy of an equally sized 1-D tensor (any dtype), one row per rank (world × n).
  at::Tensor all_gather_rows(const at::Tensor& values) const;
  void barrier() const;
  double comm_seconds() const;
  // ZeRO-3: unit all-gathers so far, and how many of them a prefetch had already started.
  std::pair<int64_t, int64_t> gather_counts() const;
  int64_t comm_bytes() const;

 private:
  void broadcast_model(models::Module& model);
  optim::FlatParams& attach_owned(optim::FlatParams& full, models::Module& model);
  void ordered_fold();  // full_determinism: this micro-step's gradient into shard_grad_
  // All-gathers every rank's slice of the flat layout, `bucket` values per rank at a time:
  // `mine` is this rank's (end_ - begin_ values), *dst (the whole flat layout) receives
  // every other rank's, this rank's own too when `own`; without dst this rank only takes part.
  void gather_slices(const at::Tensor& mine, at::Tensor* dst, bool own, int64_t bucket) const;

  bool hybrid() const { return config_.replica_group != nullptr; }

  std::shared_ptr<Communicator> comm_;        // every rank: the training loop's collectives
  std::shared_ptr<Communicator> shard_comm_;  // the ranks shards are cut among (comm_ unless hybrid)
  ParallelConfig config_;
  optim::FlatParams* full_ = nullptr;
  std::unique_ptr<optim::FlatParams> shard_;
  int64_t begin_ = 0, end_ = 0, shard_size_ = 0;  // this rank's range; shard_size_ with padding
  at::Tensor shard_grad_;  // ZeRO-2 (every stage when ordered): the reduced gradient slice, padded
  int64_t padded_ = 0;     // the flat buffer's size with padding (shard_size_ × world when sharded)
  bool last_micro_step_ = true;
  std::unique_ptr<GradReducer> reducer_;
  std::unique_ptr<Zero3> zero3_;
  std::unique_ptr<OptimizerOffload> offload_;
  std::vector<at::Tensor> buffers_;                 // broadcast each step (ddp_broadcast_buffers)
};

}  // namespace runner::dist
