// TrainingArguments.optim / optim_args, or a create_optimizer hook's OptimizerSpec, → flat
// parameters grouped as asked and an optimizer over them.
#pragma once
#include <functional>
#include <optional>
#include <memory>
#include <vector>

#include "runtime/core/training_args.h"
#include "runtime/models/module.h"
#include "runtime/optim/optimizer.h"
#include "runtime/train/hooks.h"

namespace runner::train {

struct BuiltOptimizer {
  std::unique_ptr<optim::FlatParams> flat;
  std::unique_ptr<optim::Optimizer> optimizer;
  std::vector<double> base_lrs;  // per group, what schedules multiply
};

// Without a spec: HF's two groups (weight decay on everything but biases and norm weights)
// and args.optim with optim_args. With a spec: its type and options; its groups select
// parameters by exact name or regular expression, and the rest form a last default group
// (no groups: HF's two groups with the spec's weight decay).
// `layout` decides whether the flat gradient buffer exists and which part of the flat
// parameters the optimizer owns (all of them, or a ZeRO shard); default: everything.
struct FlatLayout {
  bool grad_buffer = true;
  bool data_buffer = true;
  optim::FlatParams::Place place;     // see FlatParams: weights still in their files
  std::optional<at::Device> device;   // where the flat buffers go when the parameters are meta
  std::function<optim::FlatParams&(optim::FlatParams& full)> optimizer_view;
};
BuiltOptimizer build_optimizer(const TrainingArguments& args, const models::Module& model, const models::NamedTensorList& trainable,
                               const OptimizerSpec* spec, const FlatLayout& layout = {});
// What build_optimizer checks of args.optim, optim_args, learning_rate and weight_decay,
// without a model (runner check): ArgumentError naming the key.
void check_optimizer_arguments(const TrainingArguments& args);

}  // namespace runner::train
