// make_linear_model: linear regression over one batch field, MSE loss.
#include "runtime/core/errors.h"
#include "runtime/models/batch_inputs.h"
#include "runtime/models/builtin.h"
#include "runtime/models/layers.h"
#include "runtime/models/losses.h"

namespace runner::models {

namespace {

class LinearModel : public Module {
 public:
  explicit LinearModel(const LinearModelOptions& o) : Module("LinearModel"), input_(o.input) {
    linear_ = std::make_shared<Linear>(o.in_features, o.out_features);
    register_module("linear", linear_);
  }

  bool takes_batch() const override { return true; }
  std::vector<std::string> input_names() const override { return single_input_names(input_); }

  TensorMap forward_batch_impl(const TensorMap& batch) override {
    const at::Tensor& input = pick_input(batch, input_, "models.linear");
    at::Tensor x = input.dim() <= 1 ? input.reshape({-1, 1}) : input.flatten(1);  // (B, in)
    if (x.size(1) != linear_->weight.size(1))
      throw RecipeError("models.linear: the input has " + std::to_string(x.size(1)) + " features per example (shape " +
                        shape_string(input.sizes()) + "), in_features is " + std::to_string(linear_->weight.size(1)));
    at::Tensor y = linear_->forward(x.to(linear_->weight.scalar_type()));  // (B, out)
    TensorMap out{{"logits", y}};
    at::Tensor labels = optional_field(batch, "labels");
    if (labels.defined()) out["loss"] = regression_loss(y, labels, "models.linear");
    return out;
  }

 private:
  std::string input_;
  std::shared_ptr<Linear> linear_;
};

}  // namespace

ModulePtr make_linear_model(const LinearModelOptions& options) { return std::make_shared<LinearModel>(options); }

}  // namespace runner::models
