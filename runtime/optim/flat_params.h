// Flat parameter and gradient buffers (llm.c style). Every trainable parameter becomes a
// view into one contiguous buffer, and its .grad a view into a second one, ordered by
// parameter group so each group is one contiguous range. Optimizers then update whole
// ranges with a handful of vector ops, clipping is one norm, and ZeRO is a slice.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <ATen/ATen.h>

namespace torch::autograd {
struct Node;
}

namespace runner::optim {

struct ParamSlot {
  std::string name;
  at::Tensor param;             // the module's parameter, now a view into data()
  std::vector<int64_t> shape;
  int64_t offset = 0, numel = 0;  // range in the flat buffers
  int group = 0;
};

struct GroupRange {
  int64_t begin = 0, end = 0;  // [begin, end) in the flat buffers
  int64_t size() const { return end - begin; }
};

class FlatParams {
 public:
  // `params` in model order with their group index (0 .. num_groups-1). Parameters are
  // re-pointed at the flat storage (their values preserved); gradients are pre-set to
  // zeroed views so autograd accumulates into the flat gradient in place.
  // Without `grad_buffer` (ZeRO-2) no flat gradient exists: parameters keep their own
  // .grad, which the data-parallel layer reduces and releases bucket by bucket. Without
  // `data_buffer` (ZeRO-3) only the layout is computed and the parameters stay where they
  // are, so a sharding engine can move them unit by unit without a full extra copy.
  // `place` puts a parameter's values into its slot (a view of the flat buffer, the
  // parameter's shape) and re-points the parameter at it; by default a copy and set_data. A
  // model whose weights are still in their files (parameter_store.h) reads them straight
  // into the slots with its own (models::place), on `device`.
  using Place = std::function<void(const std::string& name, const at::Tensor& param, const at::Tensor& slot)>;
  FlatParams(const std::vector<std::pair<std::string, at::Tensor>>& params, const std::vector<int>& groups, int num_groups,
             bool grad_buffer = true, bool data_buffer = true, const Place& place = {}, std::optional<at::Device> device = {});
  // The range [begin, end) of `full` for an optimizer that owns only that range (ZeRO):
  // data() aliases full.data(), grad() is `grad` (end − begin values), groups are clipped
  // to the range and shifted to start at 0, and there are no slots.
  static std::unique_ptr<FlatParams> shard_of(FlatParams& full, int64_t begin, int64_t end, at::Tensor grad);
  // Buffers laid out by someone else (ZeRO-3's per-unit chunks): groups are ranges of them.
  static std::unique_ptr<FlatParams> over(at::Tensor data, at::Tensor grad, std::vector<GroupRange> groups);
  ~FlatParams();
  FlatParams(const FlatParams&) = delete;
  FlatParams& operator=(const FlatParams&) = delete;
  // Drops the flat data buffer once the parameters live elsewhere (ZeRO-3); slots, groups
  // and numel() stay for checkpoint layouts.
  void release_data() { data_ = at::Tensor(); }

  at::Tensor& data() { return data_; }  // (N)
  at::Tensor& grad() { return grad_; }  // (N)
  const std::vector<ParamSlot>& slots() const { return slots_; }
  const std::vector<GroupRange>& groups() const { return groups_; }
  int64_t numel() const { return numel_; }

  bool has_grad_buffer() const { return grad_.defined(); }
  void zero_grad();
  // Re-attach gradient views if something replaced a parameter's .grad (a hook that set it
  // to a new tensor): autograd would otherwise accumulate outside the flat buffer. Under
  // write_grads_on_first_accumulation and leave_grads_to_autograd, also the point where a
  // window's gradients are complete: a parameter that received none reads as zero from here
  // on.
  void ensure_grad_views();

  // Each window's first gradient of a parameter is written into its slot instead of added
  // to a zeroed buffer: zero_grad() sets every .grad to none (torch's
  // zero_grad(set_to_none=True)) and leaves the buffer alone, autograd keeps the tensor it
  // made, and a hook after its accumulation copies that tensor into the slot and makes the
  // slot .grad again, so later micro-steps add in place. 8 bytes per parameter and step
  // instead of 16 (the zeroing's write, the add's read of zeros). For a single process, and
  // for DDP / ZeRO-1 buckets reduced in place (registered before the buckets' ready hooks,
  // whose leftover buckets go only after ensure_grad_views() has zeroed the unreached slots);
  // not where a ZeRO stage reads the buffer while backward fills it, nor for a captured CUDA
  // graph, whose replays run no hooks. Readers of grad() call ensure_grad_views() first. The
  // hooks go with this object.
  void write_grads_on_first_accumulation();
  bool writes_grads_on_first_accumulation() const { return !accumulators_.empty(); }

  // No flat gradient at all: each parameter keeps the gradient autograd makes for it, as in
  // PyTorch, and zero_grad() frees them (set_to_none). No copy into a buffer, and no buffer
  // held between steps: the gradients' memory exists only from backward to the step, while
  // activations are being freed. For an optimizer that takes per-parameter tensor lists
  // (Optimizer::takes_parameter_gradients: the fused AdamW and SGD kernels), in a single
  // process, as write_grads_on_first_accumulation. grad() is then undefined; slot_grads() and
  // slot_views() give the lists.
  void leave_grads_to_autograd();
  bool leaves_grads_to_autograd() const { return autograd_grads_; }

  // Every slot's gradient (of `group`, or all), in the parameters' shapes: views of grad(),
  // or the parameters' own gradients when left to autograd (ensure_grad_views() first).
  std::vector<at::Tensor> slot_grads(std::optional<int> group = {}) const;
  // The slots of `group` in a flat tensor laid out like data() (optimizer state), or data()'s.
  std::vector<at::Tensor> slot_views(const at::Tensor& flat, int group) const;

 private:
  FlatParams() = default;
  at::Tensor data_, grad_;
  int64_t numel_ = 0;
  std::vector<ParamSlot> slots_;
  std::vector<GroupRange> groups_;
  // The AccumulateGrad nodes holding the first-write hooks, with the hooks' keys.
  std::vector<std::pair<std::shared_ptr<torch::autograd::Node>, uintptr_t>> accumulators_;
  bool autograd_grads_ = false;
};

}  // namespace runner::optim
