#include "runtime/dist/ordered_reduce.h"

#include <algorithm>

#include "runtime/core/errors.h"

namespace runner::dist {

void ordered_reduce_scatter_add(Communicator& comm, const at::Tensor& in, at::Tensor& accum) {
  const int64_t W = comm.size(), n = accum.numel();
  if (in.numel() != W * n)
    throw DistError("ordered reduction: input has " + std::to_string(in.numel()) + " values, expected " + std::to_string(W * n));
  const at::Tensor blocks = exchange_blocks(comm, in);
  for (int64_t r = 0; r < W; ++r) accum.add_(blocks.narrow(0, r * n, n).view_as(accum));
}

at::Tensor exchange_blocks(Communicator& comm, const at::Tensor& in) {
  if (comm.size() == 1) return in;
  at::Tensor blocks = at::empty_like(in);
  comm.all_to_all(in, blocks);
  return blocks;
}

double ordered_sum_of_squares(Communicator& comm, const at::Tensor& shard, const std::vector<Segment>& segments) {
  constexpr int64_t C = kOrderedChunk;
  // Rows of C values per piece: a bounded double temporary however large the shard.
  constexpr int64_t kRowsPerPiece = 1024;
  int64_t chunks = 0;
  for (const Segment& s : segments) {
    if (s.length % C != 0) throw DistError("ordered reduction: a segment of " + std::to_string(s.length) + " values is not whole chunks");
    chunks += s.length / C;
  }
  at::Tensor local = at::zeros({std::max<int64_t>(chunks, 1)}, shard.options().dtype(at::kDouble));
  int64_t k = 0;
  for (const Segment& s : segments)
    for (int64_t rows = s.length / C, row = 0; row < rows; row += kRowsPerPiece) {
      const int64_t m = std::min(kRowsPerPiece, rows - row);
      at::Tensor piece = shard.narrow(0, s.offset + row * C, m * C).view({m, C}).to(at::kDouble);
      local.narrow(0, k, m).copy_(piece.mul_(piece).sum(1));
      k += m;
    }
  const int64_t W = comm.size(), stride = local.numel();
  at::Tensor all = local;
  if (W > 1) {
    all = at::empty({W * stride}, local.options());
    comm.all_gather(local, all);
  }
  const at::Tensor host = all.to(at::kCPU);  // the partial sums are added on the host, in order
  const double* a = host.data_ptr<double>();
  double total = 0;
  int64_t first = 0;  // this segment's first chunk within each rank's list
  for (const Segment& s : segments) {
    const int64_t n = s.length / C;
    for (int64_t r = 0; r < W; ++r)
      for (int64_t c = 0; c < n; ++c) total += a[r * stride + first + c];
    first += n;
  }
  return total;
}

}  // namespace runner::dist
