#include "runtime/optim/optimizer.h"

#include "runtime/core/errors.h"

namespace runner::optim {

Optimizer::Optimizer(FlatParams& params, std::vector<GroupOptions> groups) : params_(params), groups_(std::move(groups)) {
  if (groups_.size() != params_.groups().size())
    throw RecipeError("optimizer: " + std::to_string(groups_.size()) + " group options for " +
                      std::to_string(params_.groups().size()) + " parameter groups");
}

}  // namespace runner::optim
