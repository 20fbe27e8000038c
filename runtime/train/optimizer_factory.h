// TrainingArguments.optim / optim_args → an optimizer over the flat parameters, with
// HF's two groups (decay, no decay).
#pragma once
#include <memory>

#include "runtime/core/training_args.h"
#include "runtime/optim/optimizer.h"

namespace runner::train {

// Group 0 gets args.weight_decay, group 1 none. optim_args ("k=v,k2=v2") may only name
// options the chosen optimizer has; anything else is an ArgumentError naming the key.
std::unique_ptr<optim::Optimizer> make_optimizer(const TrainingArguments& args, optim::FlatParams& flat);

}  // namespace runner::train
