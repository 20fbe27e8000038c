#include "runtime/models/activation_checkpoint.h"

#include <ATen/Context.h>
#include <ATen/autocast_mode.h>
#include <ATen/core/Generator.h>
#include <c10/core/GradMode.h>
#include <torch/csrc/autograd/autograd.h>
#include <torch/csrc/autograd/custom_function.h>

#include <algorithm>
#include <optional>

#include "runtime/models/layers.h"

namespace runner::models {

namespace {

// Autocast as it was when a forward ran, for one device type. The Trainer runs backward
// outside autocast (as torch.autocast advises), so the recomputation in backward puts the
// forward's setting back, as torch.utils.checkpoint does.
struct AutocastSetting {
  c10::DeviceType type = c10::kCPU;
  bool enabled = false;
  at::ScalarType dtype = at::kBFloat16;
};

AutocastSetting autocast_now(c10::DeviceType type) {
  return {type, at::autocast::is_autocast_enabled(type), at::autocast::get_autocast_dtype(type)};
}

class AutocastAs {
 public:
  explicit AutocastAs(std::vector<AutocastSetting> settings) {
    for (const AutocastSetting& s : settings) {
      previous_.push_back(autocast_now(s.type));
      at::autocast::set_autocast_enabled(s.type, s.enabled);
      at::autocast::set_autocast_dtype(s.type, s.dtype);
    }
    at::autocast::increment_nesting();
  }
  ~AutocastAs() {
    if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
    for (const AutocastSetting& s : previous_) {
      at::autocast::set_autocast_enabled(s.type, s.enabled);
      at::autocast::set_autocast_dtype(s.type, s.dtype);
    }
  }
  AutocastAs(const AutocastAs&) = delete;
  AutocastAs& operator=(const AutocastAs&) = delete;

 private:
  std::vector<AutocastSetting> previous_;
};

// What backward needs besides the saved inputs: the body, and the generator state the
// forward started from. Held by the autograd graph through a capsule.
struct CheckpointState : torch::CustomClassHolder {
  CheckpointBody body;
  // The last input is a stand-in that only makes autograd track the output (see checkpointed).
  bool stand_in = false;
  std::optional<at::Generator> generator;  // the device generator dropout draws from
  at::Tensor generator_state;
  std::vector<AutocastSetting> autocast;  // the CPU's and the inputs' device type's
  bool dropout_off = false;  // forward ran in a DropoutDisabled scope: so does the recomputation
  ActivationOffload offload = ActivationOffload::kOff;
  c10::Device device{c10::kCPU};  // the inputs' device, where offloaded inputs come back to
  std::vector<bool> on_host;  // per input: saved as its host copy (activation_offload.h)
};

class Checkpoint : public torch::autograd::Function<Checkpoint> {
 public:
  static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx, c10::intrusive_ptr<CheckpointState> state,
                                                at::TensorList inputs) {
    // Autograd runs a Function's forward without recording: no activations are kept. (The
    // inputs come as a TensorList: autograd tracks those, not a std::vector argument.)
    std::vector<at::Tensor> in = inputs.vec();
    // With activation_offload, the saved copy of a block's own input is its host copy: the
    // device tensor is then held by nobody and its memory is free until backward.
    std::vector<at::Tensor> saved = in;
    state->on_host.assign(in.size(), false);
    for (size_t i = 0; i + (state->stand_in ? 1 : 0) < in.size(); ++i)
      if (goes_to_host(in[i], state->offload)) {
        saved[i] = to_host(in[i]);
        state->on_host[i] = true;
      }
    ctx->save_for_backward(saved);
    ctx->saved_data["state"] = at::IValue::make_capsule(state);
    if (state->stand_in) in.pop_back();
    return {state->body(in)};
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx, torch::autograd::variable_list grads) {
    auto state = c10::static_intrusive_pointer_cast<CheckpointState>(ctx->saved_data["state"].toCapsule());
    const torch::autograd::variable_list saved = ctx->get_saved_variables();
    std::vector<at::Tensor> inputs;
    inputs.reserve(saved.size());
    for (size_t i = 0; i < saved.size(); ++i) {
      const at::Tensor& s = saved[i];
      // An input offloaded in forward required grad (goes_to_host); its host copy does not.
      if (state->on_host[i]) inputs.push_back(from_host(s, state->device).requires_grad_(true));
      else inputs.push_back(s.defined() ? s.detach().requires_grad_(s.requires_grad()) : s);
    }
    at::Tensor out;
    {
      // Replay the forward's random numbers, then hand the generator back where it was.
      at::Tensor now;
      if (state->generator) {
        std::lock_guard<std::mutex> lock(state->generator->mutex());
        now = state->generator->get_state();
        state->generator->set_state(state->generator_state);
      }
      at::AutoGradMode grad(true);
      const AutocastAs autocast(state->autocast);
      std::optional<DropoutDisabled> no_dropout;
      if (state->dropout_off) no_dropout.emplace();
      out = state->body(state->stand_in ? std::vector<at::Tensor>(inputs.begin(), inputs.end() - 1) : inputs);
      if (state->generator) {
        std::lock_guard<std::mutex> lock(state->generator->mutex());
        state->generator->set_state(now);
      }
    }
    if (out.requires_grad()) torch::autograd::backward({out}, {grads[0]});
    torch::autograd::variable_list result{at::Tensor()};  // the state argument
    for (const at::Tensor& x : inputs) result.push_back(x.defined() && x.requires_grad() ? x.grad() : at::Tensor());
    return result;
  }
};

}  // namespace

at::Tensor checkpointed(const CheckpointBody& body, const std::vector<at::Tensor>& inputs, ActivationOffload offload) {
  auto state = c10::make_intrusive<CheckpointState>();
  state->body = body;
  state->offload = offload;
  // The generator of the inputs' device (the CPU one for CPU tensors).
  const auto first = std::find_if(inputs.begin(), inputs.end(), [](const at::Tensor& t) { return t.defined(); });
  const c10::Device device = first != inputs.end() ? first->device() : c10::Device(c10::kCPU);
  state->device = device;
  state->generator = at::globalContext().defaultGenerator(device);
  state->autocast.push_back(autocast_now(c10::kCPU));
  if (device.type() != c10::kCPU) state->autocast.push_back(autocast_now(device.type()));
  state->dropout_off = dropout_disabled();
  {
    std::lock_guard<std::mutex> lock(state->generator->mutex());
    state->generator_state = state->generator->get_state();
  }
  // Autograd tracks a Function's output only when an input requires grad. Inputs from frozen
  // weights (a LoRA model's embeddings) do not, yet the body's own parameters (its adapters)
  // still need gradients: a stand-in input that requires grad keeps the output tracked (what
  // HF's enable_input_require_grads achieves for reentrant checkpointing).
  std::vector<at::Tensor> args = inputs;
  if (std::none_of(inputs.begin(), inputs.end(), [](const at::Tensor& t) { return t.defined() && t.requires_grad(); })) {
    state->stand_in = true;
    args.push_back(at::zeros({1}, at::TensorOptions(device).dtype(at::kFloat)).requires_grad_(true));
  }
  return Checkpoint::apply(state, at::TensorList(args))[0];
}

namespace {

int mark(Module& m, const std::vector<std::string>& unit_types, ActivationOffload offload) {
  int n = 0;
  const bool sequential = dynamic_cast<Sequential*>(&m) != nullptr;
  for (const auto& [name, child] : m.children()) {
    const bool unit = sequential || std::find(unit_types.begin(), unit_types.end(), child->type_name()) != unit_types.end();
    if (unit) {
      child->set_checkpointing(true, offload);
      ++n;
    } else {
      n += mark(*child, unit_types, offload);
    }
  }
  return n;
}

}  // namespace

int enable_gradient_checkpointing(Module& model, ActivationOffload offload) { return mark(model, model.no_split_modules(), offload); }

}  // namespace runner::models
