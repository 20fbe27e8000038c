// The only way the Trainer reaches user code. Lua implements this interface
// (bindings/lua); a C++ program can implement it too and train without Lua. Every hook
// returns std::nullopt / false for "not overridden": the runtime default then runs.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/models/module.h"

namespace runner::train {

using Batch = models::TensorMap;

// What compute_loss knows about the optimizer step it is part of (DESIGN.md contract).
struct LossContext {
  int64_t num_items_in_batch = 0;  // label items (-100 excluded) in the whole optimizer step
  int64_t micro_items = 0;         // the same count for this micro-batch
  bool loss_is_normalized = false;  // set by a hook that already divided by num_items_in_batch
  bool training = true;
};

struct LossResult {
  at::Tensor loss;           // scalar: the mean over the micro-batch's items (unless normalized)
  models::TensorMap outputs;  // "logits" is what evaluation collects as predictions
};

class Hooks {
 public:
  virtual ~Hooks() = default;
  virtual std::optional<LossResult> compute_loss(models::Module& model, const Batch& inputs, LossContext& ctx) {
    return std::nullopt;
  }
  // A short description of where hooks come from ("recipes/x.lua"), for messages.
  virtual std::string origin() const { return "C++"; }
};

}  // namespace runner::train
