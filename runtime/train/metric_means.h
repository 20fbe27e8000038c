// The named values a compute_loss hook reports beside its loss (LossResult::metrics: DPO's
// rewards/chosen, logps/rejected, ...), averaged between log events as TRL's trainers average
// their _metrics: a plain value is the mean over the calls since the last log and every rank; a
// weighted one (a sum over tokens and their count) is the sum over them all divided by the
// count, so ranks with fewer tokens weigh less and 2 ranks log what 1 process would; a minimum
// or maximum (Across::kMin / kMax) is taken over the ranks for each call, then averaged. The sums
// stay on the training device, so reporting a value never makes a micro-step wait for the GPU;
// they are read when logged or checkpointed.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include "runtime/dist/data_parallel.h"
#include "runtime/train/hooks.h"

namespace runner::train {

class MetricMeans {
 public:
  // `rank_parts`: each rank adds its own calls (the logged mean is over every rank's calls);
  // false when every rank saw the same calls (an evaluation run whole on each rank).
  void reset(bool rank_parts);
  // `counts` false: a stand-in batch's call (one that only joins ZeRO-3's gathers): its names
  // are kept, so every rank sums the same ones, but not its values.
  void add(const std::vector<LossResult::Metric>& metrics, bool counts = true);
  // A call this rank did not make (its slice of the last global batch was empty): minima and
  // maxima record the reduction's identity, so the ranks' calls still line up one to one.
  void skip();
  // The means since the last flush, keyed `prefix + name`, and a fresh start. Collective when
  // ranks hold parts; a HookError when the ranks report different names (a name reported on
  // some calls only is fine: its mean is over the calls that reported it). Names stay known
  // after a flush, so a rank without a batch in the next log window still sums them.
  nlohmann::json flush(const dist::DataParallel& dp, const std::string& prefix = "");
  // For a checkpoint: {name: [sum, count]} over every rank (collective when ranks hold parts);
  // load() gives them back to rank 0, as LossTracker does with its loss. (The count is the weight.)
  nlohmann::json state(const dist::DataParallel& dp) const;
  void load(const nlohmann::json& state, int rank);

 private:
  std::vector<double> totals(const dist::DataParallel& dp) const;  // sums then weights, summed over ranks
  struct Sum {
    at::Tensor value, weight;  // () fp64, on the device of the first value reported
    // Across::kMin / kMax: each call's value (the identity for a stand-in's or a skipped call)
    // in the first `n` entries of a buffer that doubles as it fills (one tensor, not one per
    // call), reduced over the ranks when flushed; value and weight hold what a checkpoint carried.
    LossResult::Metric::Across across = LossResult::Metric::Across::kMean;
    at::Tensor calls;
    int64_t n = 0;
    void record(const at::Tensor& v);
  };
  // The kMin / kMax metrics' calls reduced over the ranks: each name's sum over the calls some
  // rank made, and their count.
  std::map<std::string, std::pair<double, double>> reduced_calls(const dist::DataParallel& dp) const;
  std::map<std::string, Sum> sums_;
  bool rank_parts_ = true;
};

}  // namespace runner::train
