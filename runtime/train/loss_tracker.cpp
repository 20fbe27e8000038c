#include "runtime/train/loss_tracker.h"

#include <cmath>
#include <vector>

namespace runner::train {

void LossTracker::reset(at::Device device, bool rank_parts) {
  pending_ = at::zeros({}, at::TensorOptions().dtype(at::kDouble).device(device));
  total_ = 0.0;
  rank_parts_ = rank_parts;
}

void LossTracker::add(const at::Tensor& loss, bool nan_filter, int64_t steps_since_log) {
  const at::Tensor l = loss.detach().to(pending_.options()).reshape({});
  if (!nan_filter) {
    pending_.add_(l);
    return;
  }
  const at::Tensor average = pending_ / static_cast<double>(steps_since_log);
  pending_.add_(at::where(at::isfinite(l), l, average));
}

void LossTracker::add(double loss, bool nan_filter, int64_t steps_since_log) {
  if (nan_filter && !std::isfinite(loss)) {
    pending_.add_(pending_ / static_cast<double>(steps_since_log));
    return;
  }
  pending_.add_(loss);
}

double LossTracker::pending(const dist::DataParallel& dp) const {
  std::vector<double> v{pending_.item<double>()};
  if (rank_parts_) dp.sum(v);
  return v[0];
}

double LossTracker::flush(const dist::DataParallel& dp) {
  const double v = pending(dp);
  total_ += v;
  pending_.zero_();
  return v;
}

void LossTracker::load(double pending, double total, int rank) {
  pending_.fill_(!rank_parts_ || rank == 0 ? pending : 0.0);
  total_ = total;
}

}  // namespace runner::train
