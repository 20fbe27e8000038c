// make_mlp: a Linear / activation / dropout stack over one batch field.
#include <algorithm>

#include "runtime/core/errors.h"
#include "runtime/core/text.h"
#include "runtime/models/batch_inputs.h"
#include "runtime/models/builtin.h"
#include "runtime/models/layers.h"
#include "runtime/models/losses.h"
#include "runtime/kernels/gelu.h"

namespace runner::models {

namespace {


at::Tensor activate(const std::string& kind, const at::Tensor& x) {
  if (kind == "relu") return at::relu(x);
  if (kind == "gelu") return at::gelu(x);
  if (kind == "gelu_tanh") return kernels::gelu_tanh(x);
  if (kind == "tanh") return at::tanh(x);
  if (kind == "sigmoid") return at::sigmoid(x);
  return at::silu(x);  // "silu", checked at construction
}

class MLP : public Module {
 public:
  explicit MLP(const MLPOptions& o) : Module("MLP"), options_(o) {
    options_.activation = to_lower(o.activation);
    options_.loss = to_lower(o.loss);
    const auto& a = options_.activation;
    if (a != "relu" && a != "gelu" && a != "gelu_tanh" && a != "tanh" && a != "sigmoid" && a != "silu")
      throw RecipeError("models.mlp: unknown activation \"" + o.activation + "\" (relu, gelu, gelu_tanh, tanh, sigmoid, silu)");
    if (options_.loss != "cross_entropy" && options_.loss != "mse")
      throw RecipeError("models.mlp: unknown loss \"" + o.loss + "\" (cross_entropy, mse)");
    if (o.sizes.size() < 2)
      throw RecipeError("models.mlp: sizes needs at least an input and an output size, e.g. {784, 256, 10}");
    if (o.dropout < 0 || o.dropout >= 1) throw RecipeError("models.mlp: dropout must be in [0, 1)");
    layers_ = std::make_shared<ModuleList>();
    for (size_t i = 0; i + 1 < o.sizes.size(); ++i) {
      auto linear = std::make_shared<Linear>(o.sizes[i], o.sizes[i + 1]);
      linears_.push_back(linear);
      layers_->append(linear);
    }
    register_module("layers", layers_);
  }

  bool takes_batch() const override { return true; }
  std::vector<std::string> input_names() const override { return single_input_names(options_.input); }
  std::vector<IdRange> id_ranges() const override {
    if (options_.loss != "cross_entropy") return {};
    const int64_t classes = options_.sizes.back();
    return {{"labels", classes, true, "sizes[" + std::to_string(options_.sizes.size()) + "] = " + std::to_string(classes) + " classes"}};
  }

  TensorMap forward_batch_impl(const TensorMap& batch) override {
    const at::Tensor& input = pick_input(batch, options_.input, "models.mlp");
    at::Tensor h = input.dim() <= 1 ? input.reshape({-1, 1}) : input.flatten(1);  // (B, in)
    const at::Tensor& w0 = linears_.front()->weight;
    if (h.size(1) != w0.size(1))
      throw RecipeError("models.mlp: the input has " + std::to_string(h.size(1)) + " features per example (shape " +
                        shape_string(input.sizes()) + "), sizes[1] is " + std::to_string(w0.size(1)));
    h = h.to(w0.scalar_type());
    for (size_t i = 0; i < linears_.size(); ++i) {
      h = linears_[i]->forward(h);
      if (i + 1 == linears_.size()) break;
      h = activate(options_.activation, h);
      if (options_.dropout > 0) h = at::dropout(h, options_.dropout, dropout_active());
    }
    TensorMap out{{"logits", h}};  // (B, out)
    at::Tensor labels = optional_field(batch, "labels");
    if (labels.defined())
      out["loss"] = options_.loss == "mse" ? regression_loss(h, labels, "models.mlp") : classification_loss(h, labels, "models.mlp");
    return out;
  }

 private:
  MLPOptions options_;
  std::shared_ptr<ModuleList> layers_;
  std::vector<std::shared_ptr<Linear>> linears_;
};

}  // namespace

ModulePtr make_mlp(const MLPOptions& options) { return std::make_shared<MLP>(options); }

}  // namespace runner::models
