#include "runtime/train/step_graph.h"

#include <cstdlib>

#include "runtime/core/errors.h"
#include "runtime/core/text.h"
#include "runtime/device/device.h"
#include "runtime/log/log.h"
#include "runtime/models/batch_inputs.h"
#include "runtime/train/step_runner.h"

namespace runner::train {

namespace {

// The first model in the tree whose forward is host code, or null.
const models::Module* host_code_forward(const models::Module& m) {
  if (m.forward_runs_host_code()) return &m;
  for (const auto& [name, child] : m.children())
    if (const models::Module* found = child ? host_code_forward(*child) : nullptr) return found;
  return nullptr;
}

}  // namespace

bool StepGraph::Shape::operator==(const Shape& o) const {
  return fields == o.fields && mask_hides_nothing == o.mask_hides_nothing && positions_restart == o.positions_restart;
}

StepGraph::StepGraph(RunContext& ctx) : ctx_(ctx) {}

void StepGraph::start() {
  enabled_ = false;
  shape_.clear();
  inputs_.clear();
  facts_.clear();
  captured_ = Outputs{};
  graph_ = std::make_unique<device::CapturedWork>();
  warmed_up_ = replayed_ = eager_ = static_eager_ = 0;
  eager_reasons_.clear();
  if (!ctx_.args.cuda_graphs) return;
  const char* mode = std::getenv("RUNNER_TEST_STEP_GRAPH");
  test_eager_ = mode != nullptr && std::string(mode) == "eager";
  const TrainingArguments& a = ctx_.args;
  const dist::ParallelConfig& parallel = ctx_.dp.config();
  std::string why;
  if (!test_eager_ && !ctx_.device.is_cuda()) {
    why = "the model trains on the CPU, and CUDA graphs need a GPU";
  } else if (const std::string missing = device::CapturedWork::unavailable(); !test_eager_ && !missing.empty()) {
    why = missing;
  } else if (ctx_.dp.world() > 1) {
    why = "it trains on " + std::to_string(ctx_.dp.world()) + " ranks, and capturing the gradient collectives is not done yet";
  } else if (parallel.zero_stage > 0 || parallel.offload_optimizer) {
    why = "ZeRO / FSDP sharding or offload moves parameters and gradients outside the step's fixed buffers";
  } else if (ctx_.opt.scaler) {
    why = "fp16's overflow check decides on the host whether each step runs (bf16 needs no check)";
  } else if (a.nonfinite_policy != "log") {
    why = "nonfinite_policy = \"" + a.nonfinite_policy + "\" reads the gradient norm on the host every step";
  } else if (a.full_determinism || parallel.ordered_reduction) {
    why = "full_determinism reseeds every micro-step and sums the gradient norm on the host";
  } else if (a.gradient_checkpointing) {
    why = "gradient_checkpointing saves and restores the dropout generator's state on the host for its recomputation, which a replay would not repeat";
  } else if (!ctx_.opt.optimizer || !ctx_.opt.optimizer->capturable()) {
    why = "optim = \"" + a.optim + "\" takes its learning rate from the host; adamw_torch_fused reads it from the device";
  } else if (const std::vector<std::string> hooks = ctx_.hooks.step_hooks(); !hooks.empty()) {
    why = "the recipe's " + hooks.front() + " (" + ctx_.hooks.origin() + ") runs inside the step as code a graph cannot replay";
  } else if (const models::Module* lua = host_code_forward(*ctx_.model)) {
    why = "the model's " + lua->type_name() + " has a forward written in Lua, which a graph cannot replay";
  } else if (const Callback* cb = ctx_.callbacks.optimizer_step_observer()) {
    why = "callback " + cb->name() + " handles on_pre_optimizer_step / on_optimizer_step, which a captured step fires around the whole replay";
  }
  if (!why.empty()) {
    log::warn("cuda_graphs: every step runs eagerly: " + why);
    return;
  }
  enabled_ = true;
  ctx_.opt.optimizer->use_device_scalars();
  log::info(test_eager_ ? "cuda_graphs: RUNNER_TEST_STEP_GRAPH=eager: steps whose shapes repeat run the static step program eagerly (no capture)"
                        : "cuda_graphs: the training step is captured once its shapes repeat, then replayed");
}

StepGraph::Shape StepGraph::shape_of(const data::Batch& host, int64_t items) const {
  Shape s;
  for (const auto& [name, t] : host) s.fields[name] = {t.sizes().vec(), t.scalar_type()};
  s.items = items;
  const models::HostFacts facts = models::host_facts(host, host, false);  // the values; they name no buffer here
  s.mask_hides_nothing = facts.mask_hides_nothing.tensor != nullptr && facts.mask_hides_nothing.value;
  s.positions_restart = facts.positions_restart.tensor != nullptr && facts.positions_restart.value;
  return s;
}

void StepGraph::eager_because(const std::string& reason, const std::string& detail, int64_t step) {
  ++eager_;
  if (eager_reasons_[reason]++ == 0)
    log::info("cuda_graphs: step " + std::to_string(step) + " runs eagerly: " + reason + " (" + (detail.empty() ? "" : detail + "; ") + "said once)");
}

bool StepGraph::accepts(const Window& w, int64_t step) {
  if (!enabled_) return false;
  std::vector<Shape> shapes;
  for (size_t i = 0; i < w.size(); ++i) {
    if (w.host[i].empty()) {
      eager_because("a micro-batch is empty", "", step);
      return false;
    }
    shapes.push_back(shape_of(w.host[i], w.micro_items[i]));
  }
  if (shape_.empty()) {
    shape_ = std::move(shapes);
    num_items_ = w.num_items;
    return true;
  }
  if (shapes.size() != shape_.size()) {
    eager_because("its window has another number of micro-batches than the captured step",
                  std::to_string(shapes.size()) + ", captured " + std::to_string(shape_.size()), step);
    return false;
  }
  for (size_t i = 0; i < shapes.size(); ++i)
    if (!(shapes[i] == shape_[i])) {
      eager_because("its batch fields, shapes, dtypes or masks differ from the captured step's", "micro-batch " + std::to_string(i + 1), step);
      return false;
    }
  bool same_items = w.num_items == num_items_;
  for (size_t i = 0; i < shapes.size(); ++i) same_items = same_items && shapes[i].items == shape_[i].items;
  if (!same_items) {
    eager_because("its label count differs from the captured step's, and the loss weights are part of the graph",
                  "num_items_in_batch " + std::to_string(w.num_items) + ", captured " + std::to_string(num_items_), step);
    return false;
  }
  return true;
}

void StepGraph::stage(const Window& w, size_t i) {
  const data::Batch& host = w.host[i];
  models::check_id_ranges(*ctx_.model, host);
  if (inputs_.size() <= i) {
    // The buffers are the graph's inputs for the rest of the run: fresh tensors, never the
    // loader's own (on the CPU to_device would hand those back).
    data::Batch buffers;
    for (const auto& [name, t] : host) buffers[name] = at::empty(t.sizes(), t.options().device(ctx_.device.device).pinned_memory(false));
    inputs_.push_back(std::move(buffers));
    facts_.emplace_back();
  }
  c10::NoGradGuard no_grad;
  for (const auto& [name, t] : host) inputs_[i].at(name).copy_(t, /*non_blocking=*/ctx_.device.pin_memory);
  // After the copy: a fact names its tensor's version, which the copy just moved on. Without
  // the packed sequences: a varlen kernel's launch depends on their number and lengths, which a
  // replay cannot change, so the static step keeps the fixed-shape mask.
  facts_[i] = models::host_facts(host, inputs_[i], /*sequences=*/false);
  models::check_packing_is_honoured(*ctx_.model, facts_[i]);
}

StepGraph::Outputs StepGraph::run(const Body& body) {
  const std::vector<data::Batch> inputs(inputs_.begin(), inputs_.begin() + static_cast<std::ptrdiff_t>(shape_.size()));
  if (test_eager_) {
    ++static_eager_;
    return body(inputs, facts_);
  }
  Outputs out;
  if (warmed_up_ == 0) {
    ++warmed_up_;
    graph_->warm_up([&] { out = body(inputs, facts_); });
    return out;
  }
  if (!graph_->captured()) {
    try {
      graph_->capture([&] { captured_ = body(inputs, facts_); });
      log::info("cuda_graphs: the training step is captured (" + std::to_string(shape_.size()) + " micro-batches); later steps replay it");
    } catch (const device::CaptureInvalidated& e) {
      throw ArgumentError("CUDA could not capture the training step (" + first_line(e.what()) +
                              "), and after that PyTorch's CUDA state cannot run it eagerly in this process; set cuda_graphs = false",
                          "args.cuda_graphs");
    } catch (const std::exception& e) {
      enabled_ = false;
      log::warn("cuda_graphs: capturing the step failed, so every step runs eagerly from here on: " + first_line(e.what()));
      ++eager_;
      return body(inputs, facts_);
    }
  }
  graph_->replay();
  ++replayed_;
  return captured_;
}

void StepGraph::log_summary() const {
  if (!ctx_.args.cuda_graphs || (replayed_ + warmed_up_ + static_eager_ == 0 && eager_ == 0)) return;
  std::string line = test_eager_ ? "cuda_graphs: " + std::to_string(static_eager_) + " steps ran the static step program eagerly (RUNNER_TEST_STEP_GRAPH)"
                                 : "cuda_graphs: " + std::to_string(replayed_) + " steps replayed the captured graph, " + std::to_string(warmed_up_) + " warmed it up";
  line += ", " + std::to_string(eager_) + " ran eagerly";
  std::string why;
  for (const auto& [reason, n] : eager_reasons_) why += (why.empty() ? " (" : "; ") + std::to_string(n) + ": " + reason;
  log::info(line + (why.empty() ? "" : why + ")"));
}

}  // namespace runner::train
