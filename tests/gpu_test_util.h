// REQUIRE_GPU() for the `gpu`-labelled GoogleTest cases: without a CUDA device a case skips,
// visibly; with RUNNER_EXPECT_GPU=1 (scripts/gpu_check.sh sets it on the GPU machines) a
// missing device is a failure instead, so a runner that cannot see its GPU never reports
// green by skipping everything.
#pragma once
#include <cstdlib>
#include <string>

#include <ATen/ATen.h>
#include <gtest/gtest.h>

namespace runner::testing {

inline bool gpu_expected() {
  const char* v = std::getenv("RUNNER_EXPECT_GPU");
  return v && *v && std::string(v) != "0";
}

inline bool gpu_visible() { return at::hasCUDA() && at::getNumGPUs() > 0; }

}  // namespace runner::testing

#define REQUIRE_GPU()                                                                                           \
  if (!::runner::testing::gpu_visible()) {                                                                      \
    if (::runner::testing::gpu_expected())                                                                      \
      FAIL() << "RUNNER_EXPECT_GPU is set but this binary sees no CUDA device (" <<                             \
          (at::hasCUDA() ? "CUDA is built in, no device is visible" : "this LibTorch has no CUDA") << ")";        \
    GTEST_SKIP() << "no CUDA device: this gpu-labelled case runs on a GPU machine (ctest -L gpu)";              \
  }
