// One optimizer step, from host batches to updated weights: the StepRunner loads a window of
// gradient_accumulation_steps micro-batches (counting their items, tokens and FLOPs on the
// host, before the copy to the device), runs each micro-step (forward under autocast, the loss
// weighted by its share of the window's items, backward, fp16's loss scale, the ZeRO-3
// stand-in batch of a rank without data), then the optimizer step (clip, fp16's overflow or
// the nonfinite policy deciding whether it runs, the learning rate, the schedule).
//
// Nothing in it reads a value back from the device except fp16's overflow check and a
// non-default nonfinite policy: it is the part of a run a CUDA graph captures (cuda_graphs,
// step_graph.h).
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "runtime/models/host_facts.h"
#include "runtime/train/run_context.h"
#include "runtime/train/step_graph.h"

namespace runner::train {

// The micro-batches of one optimizer step, as the loader gave them (host memory, pinned when
// the device is a GPU). They go to the device one at a time (StepRunner::run).
struct Window {
  std::vector<Batch> host;              // empty: this rank has no examples in that slot
  std::vector<int64_t> micro_items;     // label items per micro-batch (this rank)
  int64_t num_items = 0;                // over the window, every rank (or this rank's: average_tokens_across_devices false)
  size_t size() const { return host.size(); }
};

// What an optimizer step leaves for logging.
struct StepOutcome {
  at::Tensor grad_norm;  // before clipping, on the device (read when logged)
  double lr = 0.0;       // the learning rate the step used
};

class StepRunner {
 public:
  // `save_checkpoint`: what nonfinite_policy "stop" saves before it stops.
  StepRunner(RunContext& ctx, std::function<void()> save_checkpoint);

  // Micro-batches [first, first + length) of `loader`'s epoch. Adds the window's tokens and
  // FLOPs (over every rank) to the state.
  Window load(const data::DataLoader& loader, int64_t first, int64_t length);
  // Micro-step `i` of the window: forward, loss, backward, the loss into the loop's tracker.
  // Steps run in order; after micro-step i's work is queued, micro-batch i+1's copy is, so at
  // most two of the window's micro-batches are on the device at once.
  void run(const data::DataLoader& loader, const Window& window, size_t i);
  // The window's optimizer step (fires on_pre_optimizer_step and on_optimizer_step).
  StepOutcome finish();

  // The micro-step's loss weighted as in its backward (0-dim fp64, on the device).
  at::Tensor training_step(const Batch& batch, LossContext& loss_ctx);
  // The model states' bytes on this rank, measured after the first optimizer step (-1 before).
  int64_t state_bytes() const { return state_bytes_; }
  // cuda_graphs (step_graph.h): decided when training starts, summed up when it ends.
  StepGraph& graph() { return graph_; }
  // Whether an optimizer step has begun since reset(): until then the weights and the
  // optimizer state are as training found them (auto_find_batch_size may start over).
  bool optimizer_stepped() const { return optimizer_stepped_; }
  // Whether clipping's scaling (and fp16's unscaling) is folded into the optimizer's pass
  // from now on (Optimizer::folds_gradient_divisor), decided as training starts: where the
  // optimizer can, the gradients stay where it reads them (no optimizer offload), and no
  // callback looks at them between the clip and the step.
  void decide_clipping_fold();
  // Forgets the window in flight (its staged micro-batch) and whether an optimizer step has
  // begun.
  void reset() {
    next_ = Staged{};
    static_window_ = false;
    optimizer_stepped_ = false;
    in_loop_ = false;
  }

 private:
  // full_determinism: seeds the RNG for micro-step `micro` of this window from (seed, step,
  // slice = micro · world + rank), so a slice's dropout does not depend on the world size.
  void seed_slice(int64_t micro);
  // nonfinite_policy: false = skip this optimizer step; throws for "stop".
  bool nonfinite_step_allowed(const at::Tensor& grad_norm);
  int64_t count_input_tokens(const Batch& batch) const;
  // finish() for a window StepGraph runs: the static step (captured or not) between the
  // host-side work an eager step does around its optimizer step.
  StepOutcome finish_static();
  // After the first optimizer step: the model states' bytes, logged once.
  void measure_state_bytes();

  // A micro-batch on the device, with what the model may ask about it (host_facts.h).
  struct Staged {
    int64_t index = -1;  // in its window
    Batch batch;
    models::HostFacts facts;
  };
  // Copies micro-batch `i` of the window to the device (non-blocking from pinned memory).
  // The one place a copy stream would go: a GPU build can overlap it with compute here.
  Staged stage(const Window& w, size_t i) const;

  RunContext& ctx_;
  std::function<void()> save_checkpoint_;
  Staged next_;                  // the window's next micro-batch, already on its way
  bool lockstep_dummy_ = false;  // ZeRO-3: this micro-step's batch is a zero-weight stand-in
  StepGraph graph_;
  bool static_window_ = false;  // this window runs as StepGraph's static step
  int64_t state_bytes_ = -1;     // measured at rest after the first optimizer step
  bool optimizer_stepped_ = false;
  bool fold_clipping_ = false;
  bool in_loop_ = false;  // training_step runs for the loop, not for a trial step
};

}  // namespace runner::train
