// What a step's gradient bookkeeping costs, the flat gradient zeroed and added to (DDP's and
// ZeRO's layout) against each window's first gradient written into it (one process,
// FlatParams::write_grads_on_first_accumulation) and against no flat gradient at all, the
// fused AdamW reading autograd's own (one process, FlatParams::leave_grads_to_autograd):
//   build/scripts/bench/bench_grad_accumulation [width] [layers] [micro_steps] [threads]
// defaults 2048 8 1 (all CPUs). A stack of width x width fp32 linear layers fed one row, so
// each weight's gradient is an outer product and the step is bound by per-parameter memory
// traffic, as a large model's is at a small batch (docs/performance.md "Gradients written
// on their first accumulation"). Two rows, each the median and min-max of 7 interleaved
// repetitions of ~0.3 s: backward alone, and the whole step (backward, the clipping norm and
// scale, PyTorch's fused AdamW, zero_grad).
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/core/GradMode.h>

#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/optim/optimizer.h"
#include "scripts/bench/timing.h"

namespace {

using runner::optim::FlatParams;

enum class Mode { kZeroed, kFirstWrite, kAutograd };

struct Net {
  std::vector<std::pair<std::string, at::Tensor>> params;
  std::unique_ptr<FlatParams> flat;
  std::unique_ptr<runner::optim::Optimizer> opt;
  Net(int64_t width, int layers, Mode mode) {
    at::manual_seed(1);
    for (int i = 0; i < layers; ++i)
      params.emplace_back("w" + std::to_string(i), (at::randn({width, width}) / std::sqrt(static_cast<double>(width))).requires_grad_());
    flat = std::make_unique<FlatParams>(params, std::vector<int>(params.size(), 0), 1);
    opt = runner::optim::make_adamw(*flat, {{1e-4, 0.0}}, {0.9, 0.999, 1e-8, /*fused=*/true});
    if (mode == Mode::kFirstWrite) flat->write_grads_on_first_accumulation();
    if (mode == Mode::kAutograd) flat->leave_grads_to_autograd();
  }
  void backward(const at::Tensor& x) {
    at::Tensor h = x;
    for (auto& [name, w] : params) h = at::tanh(at::linear(h, w));
    h.sum().backward();
  }
  void step(const at::Tensor& x, int micro, bool whole) {
    for (int m = 0; m < micro; ++m) backward(x);
    flat->ensure_grad_views();
    if (whole) {  // clipping as a pass of its own (torch.nn.utils.clip_grad_norm_), then the optimizer
      c10::NoGradGuard no_grad;
      std::vector<at::Tensor> grads = flat->slot_grads();
      const at::Tensor norm = at::linalg_vector_norm(at::stack(at::_foreach_norm(grads)), 2);
      at::_foreach_mul_(grads, (1.0 / (norm + 1e-6)).clamp_max_(1.0));
      opt->step();
    }
    flat->zero_grad();
  }
};

double seconds_per_call(const std::function<void()>& f) { return runner::bench::seconds_per_call(f, 0.3); }

}  // namespace

int main(int argc, char** argv) {
  const int64_t width = argc > 1 ? std::atoll(argv[1]) : 2048;
  const int layers = argc > 2 ? std::atoi(argv[2]) : 8;
  const int micro = argc > 3 ? std::atoi(argv[3]) : 1;
  if (argc > 4) at::set_num_threads(std::atoi(argv[4]));
  // runner's heap thresholds (runtime/cli/process_setup.cpp): freed gradients are reused,
  // not faulted back in each step.
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  const at::Tensor x = at::randn({1, width});
  {  // The three train alike: the same gradients, so the same weights.
    Net a(width, layers, Mode::kZeroed), b(width, layers, Mode::kFirstWrite), c(width, layers, Mode::kAutograd);
    for (int s = 0; s < 3; ++s) a.step(x, micro, true), b.step(x, micro, true), c.step(x, micro, true);
    for (size_t i = 0; i < a.params.size(); ++i)
      if (!at::equal(a.params[i].second, b.params[i].second) || !at::allclose(a.params[i].second, c.params[i].second, 1e-6, 1e-8)) {
        std::printf("MISMATCH in %s\n", a.params[i].first.c_str());
        return 1;
      }
  }
  Net zeroed(width, layers, Mode::kZeroed), first(width, layers, Mode::kFirstWrite), own(width, layers, Mode::kAutograd);
  std::printf("%lld fp32 parameters (%d layers of %lld x %lld), %d micro-step(s) a step, %d threads\n\n",
              static_cast<long long>(zeroed.flat->numel()), layers, static_cast<long long>(width), static_cast<long long>(width), micro,
              at::get_num_threads());
  std::printf("| what | zeroed buffer ms | min-max | first write ms | min-max | autograd's own ms | min-max | zeroed / first write | zeroed / autograd's own |\n"
              "|---|---|---|---|---|---|---|---|---|\n");
  for (bool whole : {false, true}) {
    std::vector<double> a, b, c;
    zeroed.step(x, micro, whole);  // warm-up: allocations, thread pool
    first.step(x, micro, whole);
    own.step(x, micro, whole);
    for (int r = 0; r < 7; ++r) {
      a.push_back(seconds_per_call([&] { zeroed.step(x, micro, whole); }) * 1e3);
      b.push_back(seconds_per_call([&] { first.step(x, micro, whole); }) * 1e3);
      c.push_back(seconds_per_call([&] { own.step(x, micro, whole); }) * 1e3);
    }
    for (auto* v : {&a, &b, &c}) std::sort(v->begin(), v->end());
    std::printf("| %s | %.2f | %.2f-%.2f | %.2f | %.2f-%.2f | %.2f | %.2f-%.2f | %.2fx | %.2fx |\n", whole ? "whole step" : "backward + zero_grad", a[3],
                a.front(), a.back(), b[3], b.front(), b.back(), c[3], c.front(), c.back(), a[3] / b[3], a[3] / c[3]);
    std::fflush(stdout);
  }
  return 0;
}
