// SplitMix64 (Steele, Lea and Flood, 2014): a tiny generator whose output is fixed by its
// definition, so seeds, window offsets and search draws derived with it are the same on every
// platform and library version (ATen's generators and <random>'s distributions make no such
// promise).
#pragma once
#include <cstdint>

namespace runner {

// The finaliser: a bijective mixer, so distinct inputs never collide.
inline uint64_t splitmix64_mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// The generator: advances `state` and returns the next value.
inline uint64_t splitmix64(uint64_t& state) {
  const uint64_t out = splitmix64_mix(state);
  state += 0x9e3779b97f4a7c15ULL;
  return out;
}

}  // namespace runner
