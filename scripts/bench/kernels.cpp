// runtime/kernels against the ATen ops they replace, forward + backward, in one process:
//   build/scripts/bench/bench_kernels [threads...]      (default: 1 and the CPU count)
// Prints a Markdown table: median and min-max of 7 repetitions, each the mean of enough
// calls to last ~0.2 s, for the shapes of the side-by-side workloads (docs/performance.md).
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "runtime/kernels/gelu.h"

namespace {

double seconds_per_call(const std::function<void()>& f) {
  using clock = std::chrono::steady_clock;
  f();  // warm-up: allocations, thread pool
  int calls = 1;
  for (;;) {
    const auto t0 = clock::now();
    for (int i = 0; i < calls; ++i) f();
    const double s = std::chrono::duration<double>(clock::now() - t0).count();
    if (s > 0.2) return s / calls;
    calls *= 2;
  }
}

struct Stats { double median, min, max; };
Stats repeat(const std::function<void()>& f) {
  std::vector<double> v;
  for (int r = 0; r < 7; ++r) v.push_back(seconds_per_call(f) * 1e3);
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v.front(), v.back()};
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> threads;
  for (int i = 1; i < argc; ++i) threads.push_back(std::atoi(argv[i]));
  if (threads.empty()) threads = {1, static_cast<int>(std::thread::hardware_concurrency())};
  struct Shape { const char* name; int64_t rows, cols; };
  const Shape shapes[] = {{"char MLP (768 x 512)", 768, 512}, {"GPT-2 MLP (8192 x 3072)", 8192, 3072}};
  std::printf("| op | shape | threads | ATen ms | min-max | runner ms | min-max | speed-up |\n|---|---|---|---|---|---|---|---|\n");
  for (int t : threads) {
    at::set_num_threads(t);
    for (const Shape& s : shapes) {
      at::manual_seed(0);
      const at::Tensor x0 = at::randn({s.rows, s.cols});
      const at::Tensor g = at::randn_like(x0);
      auto run = [&](bool fused) {
        return [&, fused] {
          at::Tensor x = x0.detach().requires_grad_(true);
          at::Tensor y = fused ? runner::kernels::gelu_tanh(x) : at::gelu(x, "tanh");
          y.backward(g);
        };
      };
      const Stats a = repeat(run(false)), r = repeat(run(true));
      std::printf("| tanh-GELU fwd+bwd | %s | %d | %.3f | %.3f-%.3f | %.3f | %.3f-%.3f | %.2fx |\n", s.name, t, a.median, a.min, a.max,
                  r.median, r.min, r.max, a.median / r.median);
      std::fflush(stdout);
    }
  }
  return 0;
}
