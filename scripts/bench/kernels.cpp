// runtime/kernels (and the SGD step on PyTorch's fused kernel, and clipping folded into the
// fused AdamW's pass) against the ATen ops they replace, forward + backward, in one process:
//   build/scripts/bench/bench_kernels [threads...]      (default: 1 and the CPU count)
// Prints a Markdown table: median and min-max of 7 repetitions, each the mean of enough
// calls to last ~0.2 s, for the shapes of the side-by-side workloads (docs/performance.md).
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "runtime/kernels/gelu.h"
#include "runtime/kernels/rms_norm.h"
#include "runtime/kernels/rotary.h"
#include "runtime/kernels/swiglu.h"
#include "runtime/optim/optimizer.h"
#include "scripts/bench/timing.h"

namespace {

double seconds_per_call(const std::function<void()>& f) {
  f();  // warm-up: allocations, thread pool
  return runner::bench::seconds_per_call(f, 0.2);
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
  auto row = [](const char* op, const char* shape, int t, const std::function<void()>& aten, const std::function<void()>& fused) {
    const Stats a = repeat(aten), r = repeat(fused);
    std::printf("| %s | %s | %d | %.3f | %.3f-%.3f | %.3f | %.3f-%.3f | %.2fx |\n", op, shape, t, a.median, a.min, a.max, r.median, r.min,
                r.max, a.median / r.median);
    std::fflush(stdout);
  };
  namespace k = runner::kernels;
  for (int t : threads) {
    at::set_num_threads(t);
    for (const Shape& s : shapes) {
      at::manual_seed(0);
      const at::Tensor x0 = at::randn({s.rows, s.cols});
      const at::Tensor g = at::randn_like(x0);
      auto run = [&](bool fused) {
        return [&, fused] {
          at::Tensor x = x0.detach().requires_grad_(true);
          at::Tensor y = fused ? k::gelu_tanh(x) : at::gelu(x, "tanh");
          y.backward(g);
        };
      };
      row("tanh-GELU fwd+bwd", s.name, t, run(false), run(true));
    }
    // Llama-3.2-1B's shapes for 2048 tokens: hidden 2048, intermediate 8192, 32 heads of 64.
    at::manual_seed(1);
    const at::Tensor h0 = at::randn({2048, 2048}), w0 = at::rand({2048}) + 0.5, dh = at::randn({2048, 2048});
    auto norm = [&](bool fused) {
      return [&, fused] {
        at::Tensor x = h0.detach().requires_grad_(true), w = w0.detach().requires_grad_(true);
        (fused ? k::rms_norm(x, w, 1e-5) : k::rms_norm_reference(x, w, 1e-5)).backward(dh);
      };
    };
    row("RMSNorm fwd+bwd", "Llama-1B (2048 x 2048)", t, norm(false), norm(true));
    const at::Tensor gate0 = at::randn({2048, 8192}), up0 = at::randn({2048, 8192}), dm = at::randn({2048, 8192});
    auto mlp = [&](bool fused) {
      return [&, fused] {
        at::Tensor gate = gate0.detach().requires_grad_(true), up = up0.detach().requires_grad_(true);
        (fused ? k::swiglu(gate, up) : at::silu(gate) * up).backward(dm);
      };
    };
    row("SwiGLU fwd+bwd", "Llama-1B (2048 x 8192)", t, mlp(false), mlp(true));
    const at::Tensor q0 = at::randn({1, 2048, 32, 64}).transpose(1, 2), freqs = at::rand({1, 2048, 32}) * 100;
    const at::Tensor emb = at::cat({freqs, freqs}, -1), cos = emb.cos(), sin = emb.sin(), dq = at::randn({1, 32, 2048, 64});
    auto rope = [&](bool fused) {
      return [&, fused] {
        at::Tensor q = q0.detach().requires_grad_(true);
        (fused ? k::rotary(q, cos, sin) : k::rotary_reference(q, cos, sin)).backward(dq);
      };
    };
    row("rotary fwd+bwd", "Llama-1B q (1 x 32 x 2048 x 64)", t, rope(false), rope(true));
    // optim sgd, momentum 0.9, weight decay 0.01, over a flat buffer of 32M fp32 parameters:
    // the ATen ops of torch.optim.SGD's single-tensor rule against runner's step.
    at::manual_seed(2);
    const int64_t n = int64_t{1} << 25;
    runner::optim::FlatParams flat({{"w", at::randn({n}).requires_grad_()}}, {0}, 1);
    flat.grad().normal_();
    auto sgd = runner::optim::make_sgd(flat, {{0.1, 0.01}}, {0.9, 0.0, false});
    const at::Tensor p = at::randn({n}), grad = at::randn({n}), buf = at::randn({n});
    row("SGD step (momentum, weight decay)", "32M fp32 parameters", t,
        [&] { buf.mul_(0.9).add_(grad.add(p, 0.01)); p.add_(buf, -0.1); }, [&] { sgd->step(); });
    // max_grad_norm's scaling before the fused AdamW: its own pass over the gradients
    // (clip_grad_norm_'s _foreach_mul_) against the same factor folded into the step's pass
    // (Optimizer::set_gradient_divisor). A factor near 1, so that the repeated calls leave
    // the gradients far from denormal values.
    runner::optim::FlatParams aflat({{"w", at::randn({n}).requires_grad_()}}, {0}, 1);
    aflat.grad().normal_();
    auto adamw = runner::optim::make_adamw(aflat, {{1e-3, 0.01}}, {0.9, 0.999, 1e-8, /*fused=*/true});
    const at::Tensor coef = at::full({}, 0.999f), divisor = coef.reciprocal();
    std::vector<at::Tensor> agrads{aflat.grad()};
    row("clip scaling + fused AdamW step", "32M fp32 parameters", t, [&] { at::_foreach_mul_(agrads, coef); adamw->step(); },
        [&] { adamw->set_gradient_divisor(divisor); adamw->step(); });
  }
  return 0;
}
