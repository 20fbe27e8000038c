// ZeRO stage 3 / FSDP FULL_SHARD: parameters, gradients and optimizer state all sharded.
//
// The model is cut into units (FSDP's wrapped modules): every module whose type is in the
// wrap list (default: the model's repeated layer, HF _no_split_modules, e.g. GPT2Block), or
// whose parameters reach min_num_params, plus the root unit holding everything else. Per
// unit and parameter group, the parameters are laid out in one buffer padded to a multiple
// of the world size, and rank r keeps chunk r of it (DeepSpeed pads per parameter, FSDP per
// unit; we pad per unit and group). This rank's chunks, group by group, form the flat buffer
// the optimizer owns, so every group stays one contiguous range.
//
// A unit's full parameters exist only while it computes: a forward pre-hook all-gathers
// them into the unit buffer's storage (parameters are views of it, so tensors autograd saved
// see the values again), the post-hook frees the storage (the root unit stays until
// backward ends) and hooks the unit's outputs so backward gathers again before it enters
// the unit. When every parameter of a unit has its gradient (accumulator post-hooks), the
// unit's gradients are reduce-scattered, this rank's chunk accumulated, the .grad tensors
// released and the unit freed. Units reduce in one fixed order (reverse unit order, root
// last) on every rank, so collectives match across ranks.
//
// After the first step, which records the order units run forward, the next units are
// prefetched: their all-gathers start without blocking when a unit begins (forward), or
// before or after a unit's backward (backward_pre / backward_post), within a budget of
// elements, at most two in flight and under max_live_parameters gathered elements.
//
// Frozen parameters of the trainable ones' dtype (a LoRA model's base) are sharded the same
// way, as a last group of each unit outside the optimizer's buffer: gathered with the unit,
// never reduced. A unit holding them is freed only once backward has entered an earlier unit
// (or at the micro-step's end), since autograd may compute a frozen weight's input gradient
// after the unit's last trainable gradient is ready.
//
// Units whose forward is never seen during the first step (a module the parent does not
// call through forward) and units at or below the persistence threshold stay gathered and
// are refreshed after each optimizer step instead; until that first step is over, the
// root's forward gathers every unit. Parameters move into their unit buffers one unit at a
// time, so set-up needs no second copy of the model.
#pragma once
#include <functional>
#include <map>
#include <utility>
#include <memory>
#include <string>
#include <vector>

#include <ATen/ATen.h>

#include "runtime/dist/zero3_options.h"
#include "runtime/dist/communicator.h"
#include "runtime/dist/ordered_reduce.h"
#include "runtime/dist/partition.h"
#include "runtime/models/module.h"
#include "runtime/optim/flat_params.h"

namespace runner::dist {


class Zero3 {
 public:
  // `full`: the model's FlatParams (grad_buffer off); its values are moved into the shards
  // and its flat data buffer released.
  // `replicas` (hybrid sharding): the ranks on other nodes that hold the same shard; each
  // reduce-scattered gradient chunk is summed over them too.
  Zero3(std::shared_ptr<Communicator> comm, optim::FlatParams& full, models::Module& model, Zero3Options options,
        std::shared_ptr<Communicator> replicas = nullptr);
  ~Zero3();

  optim::FlatParams& optimizer_params() { return *shard_; }
  at::Tensor& shard_grad() { return shard_grad_; }
  // Where each unit-group's chunk sits in shard_grad(), in a world-size-independent order
  // (for the ordered gradient norm).
  std::vector<Segment> grad_segments() const;

  void begin_micro_step();
  void discard_micro_step();  // see DataParallel::discard_micro_step
  void end_micro_step();       // reduce what is left in order, free the units
  void after_optimizer_step();  // refresh units that stay gathered

  // Whole parameters on every rank: gather every unit and keep it. release_all frees them
  // again, first copying the full values back into this rank's chunks when `write_back`.
  void gather_all();
  void release_all(bool write_back);
  // Whole parameters with the hooks paused (on), for forwards outside the training step's
  // order (generation: a forward per new token); off releases them again. Collective.
  void hold_whole(bool on);
  // Calls visit(i, transient) for each of `tensors` while it is whole, a unit at a time: a
  // unit holding any of them is gathered for its calls and released after (transient: its
  // memory goes; its values first copied back into this rank's chunks when `write_back`), so
  // a rank holds at most one unit beyond its shard (FSDP's FULL_STATE_DICT, DeepSpeed's
  // gather on save). Units holding none of them are not gathered; tensors in no unit and
  // units that stay gathered are visited as they are. Collective.
  void visit_whole(const std::vector<at::Tensor>& tensors, const std::function<void(size_t, bool)>& visit, bool write_back);

  // Optimizer state in the full flat layout of `full` (gathered a unit-group at a time into
  // host memory where `keep`, else only taken part in: empty) and back (sliced).
  std::map<std::string, at::Tensor> gather_state(const std::map<std::string, at::Tensor>& shard_state, bool keep) const;
  std::map<std::string, at::Tensor> slice_state(const std::map<std::string, at::Tensor>& full_state) const;

  // This rank's values per parameter: one range per parameter piece in its chunks.
  std::vector<OwnedRange> owned_ranges() const;
  int64_t resident_param_bytes() const;  // trainable: shard + gathered units right now
  int64_t frozen_param_bytes() const;    // frozen parameters this rank holds right now
  bool shards(const at::Tensor& param) const;  // whether `param` is in a unit (else whole)
  std::pair<int64_t, int64_t> gather_counts() const;  // (unit gathers, of which prefetched)
  std::vector<std::string> unit_names() const;

  struct State;

 private:
  std::shared_ptr<State> state_;
  std::unique_ptr<optim::FlatParams> shard_;
  at::Tensor shard_data_, shard_grad_;
};

}  // namespace runner::dist
