// Peak memory of a language model's loss, plain (linear → float → cross_entropy) against the
// fused runtime/kernels/linear_cross_entropy, forward + backward on the CPU:
//   build/scripts/bench/bench_lm_loss_memory [N H V]     (default: 4096 tokens, 512 wide, 32000 vocabulary)
// Each variant runs in its own forked process, so one's freed memory cannot hide the other's
// peak; the peak is the process's high-water mark (VmHWM) above its resident size once the
// inputs exist. Prints a Markdown table (docs/performance.md).
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "runtime/kernels/linear_cross_entropy.h"

namespace {

double status_mib(const char* field) {
  std::ifstream f("/proc/self/status");
  std::string key;
  while (f >> key) {
    if (key == field) {
      double kib = 0;
      f >> kib;
      return kib / 1024.0;
    }
    std::getline(f, key);
  }
  return -1;
}

struct Measure {
  double peak_mib, seconds, loss;
};

Measure measure(bool fused, int64_t n, int64_t h, int64_t v) {
  at::manual_seed(0);
  const at::Tensor hidden = at::randn({n, h}).requires_grad_(true);
  const at::Tensor weight = (at::randn({v, h}) * 0.02).requires_grad_(true);
  const at::Tensor labels = at::randint(v, {n}, at::kLong);
  // The gradients' own memory is the same for both: allocate it before the baseline.
  hidden.mutable_grad() = at::zeros_like(hidden);
  weight.mutable_grad() = at::zeros_like(weight);
  const double base = status_mib("VmRSS:");
  const auto t0 = std::chrono::steady_clock::now();
  const at::Tensor loss = fused ? runner::kernels::linear_cross_entropy(hidden, weight, {}, labels)
                                : runner::kernels::linear_cross_entropy_reference(hidden, weight, {}, labels);
  loss.backward();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return {status_mib("VmHWM:") - base, s, loss.item<double>()};
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t n = argc > 3 ? std::atoll(argv[1]) : 4096, h = argc > 3 ? std::atoll(argv[2]) : 512,
                v = argc > 3 ? std::atoll(argv[3]) : 32000;
  std::printf("| N × H × V | variant | peak above inputs MiB | fp32 logits MiB | seconds | loss |\n|---|---|---|---|---|---|\n");
  for (bool fused : {false, true}) {
    int fd[2];
    if (pipe(fd) != 0) return 1;
    const pid_t pid = fork();
    if (pid == 0) {
      close(fd[0]);
      const Measure m = measure(fused, n, h, v);
      if (write(fd[1], &m, sizeof m) != static_cast<ssize_t>(sizeof m)) _exit(1);
      _exit(0);
    }
    close(fd[1]);
    Measure m{};
    const bool ok = read(fd[0], &m, sizeof m) == static_cast<ssize_t>(sizeof m);
    close(fd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!ok || status != 0) return 1;
    std::printf("| %lld × %lld × %lld | %s | %.0f | %.0f | %.2f | %.6f |\n", static_cast<long long>(n), static_cast<long long>(h),
                static_cast<long long>(v), fused ? "fused (chunked)" : "plain ATen", m.peak_mib, static_cast<double>(n * v) * 4 / (1 << 20),
                m.seconds, m.loss);
  }
  return 0;
}
