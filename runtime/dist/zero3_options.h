// ZeRO-3 / FSDP FULL_SHARD settings, declared once: DeepSpeed's zero_optimization keys and
// FSDP's arguments (runtime/config) fill them in dist::ParallelConfig, and the Zero3 engine
// (zero3.h) reads them as given. The defaults are DeepSpeed's.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace runner::dist {

struct Zero3Options {
  std::vector<std::string> wrap_classes;  // FSDP auto-wrap: module types that become units (empty: the model's no_split_modules())
  int64_t min_num_params = 0;             // > 0: also wrap modules this large (FSDP's size policy)
  int64_t persistence_threshold = 100000;  // units this small stay gathered (stage3_param_persistence_threshold)
  // Prefetch budgets in elements (0 = off; a positive budget always takes the next unit):
  // DeepSpeed's stage3_prefetch_bucket_size for both directions, FSDP's forward_prefetch /
  // backward_prefetch as one unit. backward_post: issue the backward prefetch after the
  // unit's gradients are reduced (FSDP BACKWARD_POST) instead of before its backward.
  int64_t prefetch_forward = 50000000, prefetch_backward = 50000000;
  bool backward_post = false;
  // Cap on gathered (non-persistent) elements that prefetching respects
  // (stage3_max_live_parameters); the unit about to compute is always gathered.
  int64_t max_live_parameters = 1000000000;
  // DeepSpeed offload_param / FSDP CPUOffload: this rank's shards of the parameters and
  // gradients (and so the optimizer's state and step) live in host memory; only gathered
  // units are on the device. On a CPU run it changes nothing.
  bool offload = false;
  // Page-locked offloaded shards (faster copies to and from a GPU): DeepSpeed's offload
  // pin_memory, FSDP's CPU offload (pinned, as PyTorch's CPUOffloadPolicy).
  bool pin_offload = true;
  // full_determinism: chunks padded to whole kOrderedChunk blocks and gradients added in
  // rank order after an all-to-all instead of reduce-scattered (ordered_reduce.h). Set from
  // ParallelConfig::ordered_reduction.
  bool ordered = false;

  // A wrap policy the user chose may select a module its parent does not call through
  // forward: then the first step runs with every unit gathered, to find such units. The
  // default policy (the built-in models' layer classes, whose entries are hooked) needs no
  // such step.
  bool verify_units() const { return !wrap_classes.empty() || min_num_params > 0; }
};

}  // namespace runner::dist
