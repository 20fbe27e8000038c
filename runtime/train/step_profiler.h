// profile_steps (#25): the PyTorch (Kineto) profiler over a range of global steps, as
// torch.profiler with a schedule does. The trainer calls step_begin before a step's batches
// are loaded and step_end after its optimizer step; the profiler runs from the range's first
// step_begin to its last step_end, each step inside a "ProfilerStep#N" range. Each rank writes
// output_dir/profile/rank<R>.pt.trace.json (Chrome trace JSON, what TensorBoard's profiler
// plugin and Perfetto read); rank 0 logs the ops with the most self time.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "runtime/core/step_range.h"
#include "runtime/core/training_args.h"

namespace at {
class RecordFunction;
}  // namespace at

namespace runner::train {

class StepProfiler {
 public:
  StepProfiler();
  ~StepProfiler();  // a range still open (an error mid-run) is closed without a trace

  // At training start: reads args.profile_steps (off when ""), and warms the profiler up so a
  // LibTorch without it fails here, with an ArgumentError, not at step A.
  void start(const TrainingArguments& args, int rank, bool cuda);
  void step_begin(int64_t step);  // the 1-based global step about to run
  void step_end(int64_t step);
  // Training is over after `last_step`: closes a range training ended inside, or warns that
  // no step of the range ran.
  void finish(int64_t last_step);

 private:
  void stop(int64_t last_step);

  std::optional<StepRange> range_;
  std::string path_;  // this rank's trace file
  int rank_ = 0;
  bool cuda_ = false;
  bool active_ = false;  // the profiler is recording
  int64_t first_recorded_ = 0;
  bool recorded_ = false;  // a trace was written this run
  std::string step_name_;  // the open ProfilerStep#N range's name (the range may keep a view of it)
  std::unique_ptr<at::RecordFunction> step_range_;
};

}  // namespace runner::train
