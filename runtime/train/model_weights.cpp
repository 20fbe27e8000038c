#include "runtime/train/model_weights.h"

#include <exception>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/core/errors.h"
#include "runtime/log/log.h"
#include "runtime/train/async_save.h"

namespace runner::train {

std::optional<models::SavedModel> writer_weights(RunContext& ctx, bool snapshot) {
  models::SavedModel saved = models::saved_model(*ctx.model);
  const bool writer = ctx.should_write();
  std::vector<at::Tensor> tensors;
  for (const auto& [name, t] : saved.weights) tensors.push_back(t);
  ctx.dp.visit_whole(tensors, [&](size_t i, bool transient) {
    at::Tensor& t = saved.weights[i].second;
    if (writer && snapshot) t = host_copy(t);  // page-locked: a full-bandwidth copy
    else if (writer && transient) t = t.is_cuda() ? t.to(at::kCPU) : t.clone();
  }, /*write_back=*/false);
  if (!writer) return std::nullopt;
  return saved;
}

void load_model_weights(RunContext& ctx, const std::string& dir) {
  std::optional<models::Module::LoadPlan> planned;
  std::exception_ptr failed;
  try {
    planned = models::plan_saved_weights(*ctx.model, dir);
  } catch (...) {
    failed = std::current_exception();
  }
  if (ctx.dp.lockstep()) {
    std::vector<double> failures = {failed ? 1.0 : 0.0};
    ctx.dp.sum(failures);
    if (!failed && failures[0] > 0) throw CheckpointError("another rank could not load the checkpoint's weights", dir);
  }
  if (failed) std::rethrow_exception(failed);
  const models::Module::LoadPlan& plan = *planned;
  c10::NoGradGuard no_grad;
  ctx.dp.visit_whole(plan.targets, [&](size_t i, bool) { plan.targets[i].copy_(plan.sources[i]); }, /*write_back=*/true);
  using nlohmann::json;
  if (!plan.report.missing.empty()) log::warn("There were missing keys in the checkpoint model loaded: " + json(plan.report.missing).dump());
  if (!plan.report.unexpected.empty()) log::warn("There were unexpected keys in the checkpoint model loaded: " + json(plan.report.unexpected).dump());
}

}  // namespace runner::train
