// The training loss between log events (HF's tr_loss and _total_loss_scalar), kept on the
// training device so that no micro-step waits for the GPU: each micro-step adds its weighted
// loss with device ops, and the value is read (and summed over ranks) only when it is logged,
// checkpointed or reported at the end.
#pragma once
#include <ATen/ATen.h>

#include "runtime/dist/data_parallel.h"

namespace runner::train {

class LossTracker {
 public:
  // `rank_parts`: each rank adds only its own micro-batches' losses, so the logged value is
  // the sum over ranks; false when every rank adds every rank's losses (full_determinism's
  // ordered gather), which keeps the value identical on every rank.
  void reset(at::Device device, bool rank_parts);
  // One micro-step's weighted loss: a 0-dim tensor on the device, or a host value. HF's
  // logging_nan_inf_filter replaces a non-finite one by the average since the last log
  // (`steps_since_log` = optimizer steps since then, this one included).
  void add(const at::Tensor& loss, bool nan_filter, int64_t steps_since_log);
  void add(double loss, bool nan_filter, int64_t steps_since_log);
  // The loss since the last log over every rank (collective when ranks hold parts).
  double pending(const dist::DataParallel& dp) const;
  // pending(), moved into the running total (a log event).
  double flush(const dist::DataParallel& dp);
  double total() const { return total_; }
  // From a checkpoint: `pending` is the global value; with rank parts only rank 0 holds it.
  void load(double pending, double total, int rank);

 private:
  at::Tensor pending_;  // () fp64 on the training device
  double total_ = 0.0;
  bool rank_parts_ = true;
};

}  // namespace runner::train
