// Reductions whose result does not depend on the world size (full_determinism).
//
// A SUM all-reduce or reduce-scatter adds the ranks' gradients in an order that depends on
// how many ranks there are, and fp32 addition is not associative: 2 ranks and 3 ranks give
// weights that differ in the last bits. Under full_determinism every micro-batch is a
// "slice" numbered k = micro_step · world + rank (the ShardedSampler's layout, so slice k
// holds the same examples for every world size), and the accumulated gradient is the left
// fold ((0 + g₀) + g₁) + g₂ … over slices in k order. Each rank computes its slice's gradient
// alone; an all-to-all hands every rank the pieces of its shard from all ranks, and it adds
// them in rank order. One process adds its micro-steps in the same order, so 1, 2 or 3
// ranks perform the very same float additions per element.
//
// The gradient norm is summed in fixed chunks of kOrderedChunk values at fixed global
// positions (shards are padded to multiples of the chunk), each chunk in double, the chunks
// added in global order, so clipping is world-size independent too.
#pragma once
#include <cstdint>
#include <vector>

#include <ATen/ATen.h>

#include "runtime/dist/communicator.h"

namespace runner::dist {

constexpr int64_t kOrderedChunk = 4096;

// A range of a rank's shard buffer holding that rank's piece of one flat global buffer:
// rank r's piece is the r-th `length` values of it. length is a multiple of kOrderedChunk.
struct Segment {
  int64_t offset = 0, length = 0;
};

// accum (n) += block `rank` of every rank's `in` (size · n), added in rank order.
void ordered_reduce_scatter_add(Communicator& comm, const at::Tensor& in, at::Tensor& accum);
// The all-to-all alone: block r of the result is rank r's block for this rank (for callers
// whose accumulator is not one contiguous range, like ZeRO-3's unit chunks).
at::Tensor exchange_blocks(Communicator& comm, const at::Tensor& in);

// Σ x² over the global buffers the segments are pieces of (every rank passes the same
// segment layout), summed chunk by chunk in global order. Collective.
double ordered_sum_of_squares(Communicator& comm, const at::Tensor& shard, const std::vector<Segment>& segments);

// Rounds a per-rank shard size up so chunk boundaries fall at the same global positions.
inline int64_t ordered_shard_size(int64_t per_rank) { return (per_rank + kOrderedChunk - 1) / kOrderedChunk * kOrderedChunk; }

}  // namespace runner::dist
