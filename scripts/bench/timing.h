// The benches' clock: the mean seconds of one call of `f`, over enough calls (doubling) to
// last at least `min_seconds`, so short calls are not lost in the clock's resolution.
#pragma once
#include <chrono>
#include <functional>

namespace runner::bench {

inline double seconds_per_call(const std::function<void()>& f, double min_seconds) {
  using clock = std::chrono::steady_clock;
  for (int calls = 1;; calls *= 2) {
    const auto t0 = clock::now();
    for (int i = 0; i < calls; ++i) f();
    const double s = std::chrono::duration<double>(clock::now() - t0).count();
    if (s > min_seconds) return s / calls;
  }
}

}  // namespace runner::bench
