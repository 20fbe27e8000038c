// cuda_graphs: the whole training step — every micro-step's forward, loss and backward,
// clipping, the AdamW update and zeroing the gradients — captured once as a CUDA graph and
// replayed each step, so a step costs one launch from the host instead of thousands.
//
// A replay repeats the captured kernels on the captured memory, so a window is replayed only
// when everything the step took from the host is what it was at capture: the same number of
// micro-batches, the same fields, shapes and dtypes, the same label counts (the loss weights),
// the same host facts (host_facts.h). The batches are copied into the captured input buffers;
// the learning rate and step count are device tensors the optimizer fills before the replay
// (optimizer.h, use_device_scalars). Other windows run eagerly, and the log says which and why
// (once per reason). Runs that cannot capture at all (data parallelism, fp16's host-side
// overflow check, a recipe's compute_loss or training_step, a Lua forward, an optimizer other
// than adamw_torch_fused, ...) say why once and train eagerly.
//
// The first replayable window runs eagerly on the capture stream (the warm-up PyTorch
// advises), the second is captured and replayed, later ones are replayed. With
// RUNNER_TEST_STEP_GRAPH=eager (tests on a CPU machine) nothing is captured: every replayable
// window runs this same static program eagerly, so its plumbing is tested against the plain
// step without a GPU.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/device/cuda_graph.h"
#include "runtime/models/host_facts.h"
#include "runtime/train/run_context.h"

namespace runner::train {

struct Window;

class StepGraph {
 public:
  explicit StepGraph(RunContext& ctx);

  // At the start of each training run (model, optimizer and engine exist, possibly new
  // ones): forgets any earlier capture and decides whether this run may capture. Logs why
  // not, once.
  void start();
  bool enabled() const { return enabled_; }
  // Whether window `w` runs as the static step; logs the first window of each reason it does not.
  bool accepts(const Window& w, int64_t step);
  // Copies micro-batch `i` of an accepted window into its input buffers (non-blocking from
  // pinned memory).
  void stage(const Window& w, size_t i);
  // The static step's label counts (its loss weights), equal to every accepted window's.
  int64_t num_items() const { return num_items_; }
  int64_t micro_items(size_t i) const { return shape_[i].items; }

  // What the static step leaves: each micro-step's weighted loss and the gradient norm (in
  // the graph's memory when replayed: read them before the next replay).
  struct Outputs {
    std::vector<at::Tensor> losses;
    at::Tensor grad_norm;
  };
  using Body = std::function<Outputs(const std::vector<data::Batch>& inputs, const std::vector<models::HostFacts>& facts)>;
  // Runs the static step over the staged inputs: eagerly (warm-up, or the test mode), or
  // captured and replayed. A capture that fails turns graphs off for the run with one warning
  // and runs this window eagerly.
  Outputs run(const Body& body);
  // The run's tally, logged at the end of training: steps replayed, eager and why.
  void log_summary() const;

 private:
  // One micro-batch as the captured step saw it: each field's shape and dtype, its label count.
  struct Shape {
    std::map<std::string, std::pair<std::vector<int64_t>, at::ScalarType>> fields;
    int64_t items = 0;
    bool mask_hides_nothing = false, positions_restart = false;
    bool operator==(const Shape& o) const;
  };
  Shape shape_of(const data::Batch& host, int64_t items) const;
  // Counts an eager step under `reason` (a kind, no numbers); the first of each kind is logged
  // with its `detail`.
  void eager_because(const std::string& reason, const std::string& detail, int64_t step);

  RunContext& ctx_;
  bool enabled_ = false;
  bool test_eager_ = false;  // RUNNER_TEST_STEP_GRAPH=eager
  std::vector<Shape> shape_;  // the static step's micro-batches (fixed by the first accepted window)
  int64_t num_items_ = 0;
  std::vector<data::Batch> inputs_;  // the input buffers, on the device
  std::vector<models::HostFacts> facts_;
  std::unique_ptr<device::CapturedWork> graph_;
  Outputs captured_;
  int64_t warmed_up_ = 0, replayed_ = 0, eager_ = 0, static_eager_ = 0;
  std::map<std::string, int64_t> eager_reasons_;
};

}  // namespace runner::train
