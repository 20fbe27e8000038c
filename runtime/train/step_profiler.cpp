#include "runtime/train/step_profiler.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <vector>

#include <ATen/record_function.h>
#include <kineto/ActivityType.h>
#include <torch/csrc/autograd/profiler_kineto.h>

#include "runtime/core/errors.h"
#include "runtime/core/text.h"
#include "runtime/device/gpu_info.h"
#include "runtime/log/log.h"

namespace runner::train {

namespace prof = torch::autograd::profiler;
using torch::profiler::impl::ActivityType;
using torch::profiler::impl::ProfilerConfig;
using torch::profiler::impl::ProfilerState;

namespace {

constexpr size_t kTopOps = 10;
const std::string kStepPrefix = "ProfilerStep#";

std::string range_text(int64_t first, int64_t last) {
  return first == last ? std::to_string(first) : std::to_string(first) + "-" + std::to_string(last);
}

ProfilerConfig config() { return ProfilerConfig(ProfilerState::KINETO, /*report_input_shapes=*/false); }

std::set<ActivityType> activities(bool cuda) {
  std::set<ActivityType> a{ActivityType::CPU};
  if (cuda) a.insert(ActivityType::CUDA);
  return a;
}

struct OpTotal {
  double self_ns = 0;
  int64_t calls = 0;
};

// CUDA: a kernel (or copy, or memset) is all self time; the GPU copies of the step ranges
// (GPU_USER_ANNOTATION) span kernels and are left out.
std::map<std::string, OpTotal> cuda_self_times(const std::vector<prof::KinetoEvent>& events) {
  std::map<std::string, OpTotal> ops;
  for (const auto& e : events) {
    const auto type = static_cast<libkineto::ActivityType>(e.activityType());
    if (e.deviceType() != c10::DeviceType::CUDA) continue;
    if (type != libkineto::ActivityType::CONCURRENT_KERNEL && type != libkineto::ActivityType::GPU_MEMCPY &&
        type != libkineto::ActivityType::GPU_MEMSET)
      continue;
    OpTotal& t = ops[e.name()];
    t.self_ns += static_cast<double>(e.durationNs());
    t.calls += 1;
  }
  return ops;
}

// CPU: the events carry no self time, but on one thread they nest (an op's children run
// inside it), so self time is an event's duration less its direct children's, as
// torch.profiler's self_cpu_time_total counts it. The ProfilerStep#N ranges are parents only.
std::map<std::string, OpTotal> cpu_self_times(const std::vector<prof::KinetoEvent>& events) {
  std::vector<const prof::KinetoEvent*> cpu;
  for (const auto& e : events)
    if (e.deviceType() == c10::DeviceType::CPU && !e.isAsync()) cpu.push_back(&e);
  std::sort(cpu.begin(), cpu.end(), [](const prof::KinetoEvent* a, const prof::KinetoEvent* b) {
    if (a->startThreadId() != b->startThreadId()) return a->startThreadId() < b->startThreadId();
    if (a->startNs() != b->startNs()) return a->startNs() < b->startNs();
    return a->endNs() > b->endNs();  // the parent before a child that starts with it
  });
  std::vector<double> self(cpu.size());
  std::vector<size_t> open;  // the current thread's enclosing events
  for (size_t i = 0; i < cpu.size(); ++i) {
    if (i > 0 && cpu[i]->startThreadId() != cpu[i - 1]->startThreadId()) open.clear();
    while (!open.empty() && cpu[open.back()]->endNs() <= cpu[i]->startNs()) open.pop_back();
    self[i] = static_cast<double>(cpu[i]->durationNs());
    if (!open.empty()) self[open.back()] -= self[i];
    open.push_back(i);
  }
  std::map<std::string, OpTotal> ops;
  for (size_t i = 0; i < cpu.size(); ++i) {
    const std::string name = cpu[i]->name();
    if (name.rfind(kStepPrefix, 0) == 0) continue;
    OpTotal& t = ops[name];
    t.self_ns += std::max(self[i], 0.0);
    t.calls += 1;
  }
  return ops;
}

void log_summary(const std::vector<prof::KinetoEvent>& events, bool cuda, int64_t first, int64_t last, const std::string& path) {
  const auto ops = cuda ? cuda_self_times(events) : cpu_self_times(events);
  std::vector<std::pair<std::string, OpTotal>> rows(ops.begin(), ops.end());
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.self_ns > b.second.self_ns; });
  const double steps = static_cast<double>(last - first + 1);
  double total_ns = 0;
  for (const auto& [name, t] : rows) total_ns += t.self_ns;
  const std::string device = cuda ? "CUDA" : "CPU";
  log::info("***** Profile of step " + range_text(first, last) + ": the ops with the most " + device + " self time, per step (trace: " + path + ") *****");
  char line[160];
  std::snprintf(line, sizeof line, "  %14s %10s  %s", (device + " ms/step").c_str(), "calls/step", "op");
  log::info(line);
  for (size_t i = 0; i < std::min(kTopOps, rows.size()); ++i) {
    const auto& [name, t] = rows[i];
    std::snprintf(line, sizeof line, "  %14.3f %10.1f  ", t.self_ns / 1e6 / steps, static_cast<double>(t.calls) / steps);
    log::info(line + (name.size() > 100 ? name.substr(0, 97) + "..." : name));
  }
  std::snprintf(line, sizeof line, "  %14.3f %10s  (all %zu ops)", total_ns / 1e6 / steps, "", rows.size());
  log::info(line);
}

}  // namespace

StepProfiler::StepProfiler() = default;

StepProfiler::~StepProfiler() {
  if (!active_) return;
  step_range_.reset();
  try {
    prof::disableProfiler();
  } catch (const std::exception&) {  // already failing: the first error is the one to report
  }
}

void StepProfiler::start(const TrainingArguments& args, int rank, bool cuda) {
  range_ = parse_step_range("profile_steps", args.profile_steps);
  recorded_ = false;
  if (!range_) return;
  rank_ = rank;
  cuda_ = cuda;
  path_ = (std::filesystem::path(args.output_dir) / "profile" / ("rank" + std::to_string(rank) + ".pt.trace.json")).string();
  try {
    prof::prepareProfiler(config(), activities(cuda_));  // torch.profiler's warm-up
  } catch (const c10::Error& e) {
    throw ArgumentError("args.profile_steps: the PyTorch profiler cannot start in this LibTorch: " + first_line(e.what_without_backtrace()));
  }
}

void StepProfiler::step_begin(int64_t step) {
  if (!range_ || !range_->contains(step)) return;
  if (!active_) {
    try {
      prof::enableProfiler(config(), activities(cuda_));
    } catch (const c10::Error& e) {
      throw ArgumentError("args.profile_steps: the PyTorch profiler cannot start in this LibTorch: " + first_line(e.what_without_backtrace()));
    }
    active_ = true;
    first_recorded_ = step;
  }
  step_name_ = kStepPrefix + std::to_string(step);
  step_range_ = std::make_unique<at::RecordFunction>(at::RecordScope::USER_SCOPE);
  step_range_->before(step_name_);
}

void StepProfiler::step_end(int64_t step) {
  if (!active_) return;
  step_range_.reset();  // ends ProfilerStep#step
  if (step >= range_->last) stop(step);
}

void StepProfiler::finish(int64_t last_step) {
  if (!range_) return;
  if (active_) stop(last_step);  // training stopped inside the range
  if (!recorded_ && rank_ == 0)
    log::warn("profile_steps: nothing was profiled: training ran no step of " + range_text(range_->first, range_->last) + " (it ended at global step " + std::to_string(last_step) + ")");
}

void StepProfiler::stop(int64_t last_step) {
  if (cuda_) device::synchronize_gpu();  // the step's kernels finish inside the trace (torch.profiler does the same)
  active_ = false;
  std::unique_ptr<prof::ProfilerResult> result = prof::disableProfiler();
  try {
    std::filesystem::create_directories(std::filesystem::path(path_).parent_path());
    result->save(path_);
  } catch (const std::exception& e) {  // c10::Error (what() ends in a backtrace) or filesystem_error
    throw ArgumentError("args.profile_steps: cannot write " + path_ + ": " + first_line(e.what()));
  }
  recorded_ = true;
  if (rank_ == 0) log_summary(result->events(), cuda_, first_recorded_, last_step, path_);
}

}  // namespace runner::train
