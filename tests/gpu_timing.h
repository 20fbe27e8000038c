// The kernels' timing cases (label gpu; they print, they assert nothing about speed): the mean
// wall time of `reps` calls of f after 3 warm-up calls, the GPU waited for at both ends.
#pragma once
#include <chrono>
#include <functional>

#include "runtime/device/gpu_info.h"

namespace runner::testing {

inline double gpu_ms_per_call(const std::function<void()>& f, int reps) {
  for (int i = 0; i < 3; ++i) f();
  device::synchronize_gpu();
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < reps; ++i) f();
  device::synchronize_gpu();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / reps;
}

}  // namespace runner::testing
