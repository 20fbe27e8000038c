// How a flat buffer of `numel` values is cut into equal shards, one per rank (ZeRO-1/2,
// DeepSpeed's flat partitions). The buffer is padded to a multiple of world × align so
// every shard has the same size and collectives need no v-variants; shards cut through
// parameters. Rank r owns [r·shard, (r+1)·shard) ∩ [0, numel).
#pragma once
#include <algorithm>
#include <cstdint>

namespace runner::dist {

struct Partition {
  int64_t numel = 0;   // real values
  int64_t shard = 0;   // per rank, padding included
  int rank = 0, world = 1;

  int64_t padded() const { return shard * world; }
  int64_t begin(int r) const { return std::min(numel, static_cast<int64_t>(r) * shard); }
  int64_t end(int r) const { return std::min(numel, (static_cast<int64_t>(r) + 1) * shard); }
  int64_t begin() const { return begin(rank); }
  int64_t end() const { return end(rank); }
  int64_t size() const { return end() - begin(); }  // real values this rank owns
};

// Values of the model's flat layout [flat_begin, flat_begin + length) that this rank
// keeps, at [local_begin, …) of its shard buffers (optimizer state, master weights).
struct OwnedRange {
  int64_t flat_begin = 0, length = 0, local_begin = 0;
};

// DeepSpeed aligns partitions to 2 elements (4 bytes of fp16); we keep that.
inline Partition make_partition(int64_t numel, int world, int rank, int64_t align = 2) {
  const int64_t unit = static_cast<int64_t>(world) * align;
  const int64_t padded = (numel + unit - 1) / unit * unit;
  return Partition{numel, padded / world, rank, world};
}

}  // namespace runner::dist
