#pragma once
// Elementwise math that compilers vectorise: no libm calls, no branches, only arithmetic,
// min/max, floor and integer bit moves, so a plain loop over these becomes AVX2/AVX-512 code
// under GCC's target_clones (see RUNNER_VECTORIZED_CLONES).
#include <cstdint>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
// One copy of the function per instruction set, picked when the program loads (ifunc):
// a portable binary that still runs AVX-512 code where the CPU has it.
#define RUNNER_VECTORIZED_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define RUNNER_VECTORIZED_CLONES
#endif

namespace runner::kernels::vmath {

// e^v in float: v = n·ln2 + r with |r| ≤ ln2/2 (ln2 split in two so n·ln2 is exact), e^r by
// its Taylor series to r^7 (truncation below 1e-8 relative), 2^n written into the exponent
// bits. Below -87 (e^-87 ≈ 1.6e-38, the smallest normal floats) the result is that of -87;
// above 88.7 it is +inf, as expf's. NaN stays NaN.
inline float exp(float v) {
  const float big = v > 88.7f ? __builtin_inff() : 1.0f;
  v = v < -87.0f ? -87.0f : v;
  v = v > 88.0f ? 88.0f : v;
  float n = __builtin_floorf(v * 1.44269504088896341f + 0.5f);
  const float r = (v - n * 0.693145751953125f) - n * 1.42860682030941723e-6f;
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  n = n == n ? n : 0.0f;  // NaN: any exponent (p is NaN already); the cast below needs a number
  const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return p * scale * big;
}

// 1 / (1 + e^-z).
inline float sigmoid(float z) { return 1.0f / (1.0f + exp(-z)); }

}  // namespace runner::kernels::vmath
