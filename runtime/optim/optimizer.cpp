#include "runtime/optim/optimizer.h"

#include "runtime/core/errors.h"
#include <c10/core/GradMode.h>

namespace runner::optim {

Optimizer::Optimizer(FlatParams& params, std::vector<GroupOptions> groups) : params_(params), groups_(std::move(groups)) {
  if (groups_.size() != params_.groups().size())
    throw RecipeError("optimizer: " + std::to_string(groups_.size()) + " group options for " +
                      std::to_string(params_.groups().size()) + " parameter groups");
}

void Optimizer::load_state_tensor(const std::map<std::string, at::Tensor>& state, const std::string& name, at::Tensor& dst) {
  auto it = state.find(name);
  if (it == state.end()) throw CheckpointError("optimizer state has no '" + name + "'");
  if (it->second.numel() != dst.numel())
    throw CheckpointError("optimizer state '" + name + "' has " + std::to_string(it->second.numel()) + " values, expected " +
                          std::to_string(dst.numel()));
  c10::NoGradGuard no_grad;
  dst.copy_(it->second.reshape(-1));
}

}  // namespace runner::optim
