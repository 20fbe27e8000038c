#include "runtime/train/eval_gather.h"

#include <algorithm>

#include "runtime/core/errors.h"

namespace runner::train {

at::Tensor gather_in_dataset_order(const dist::DataParallel& dp, const at::Tensor& local, const std::vector<int64_t>& sizes) {
  constexpr int64_t kMaxDims = 8;
  const int64_t W = dp.world(), batches = static_cast<int64_t>(sizes.size());
  at::Tensor t = local.defined() ? (local.dim() == 0 ? local.reshape({1}) : local).contiguous() : local;
  if (t.defined() && t.dim() > kMaxDims) throw RecipeError("evaluation outputs with more than 8 dimensions cannot be gathered");
  int64_t local_rows = 0;
  for (const int64_t n : sizes) local_rows += n;
  if ((t.defined() ? t.size(0) : 0) != local_rows)
    throw RecipeError("evaluation outputs have " + std::to_string(t.defined() ? t.size(0) : 0) + " rows but their batches gave " +
                      std::to_string(local_rows));

  // Every rank's description: defined, dtype, rank, shape, rows per batch.
  const int64_t head_len = 3 + kMaxDims + batches;
  at::Tensor head = at::zeros({head_len}, at::kLong);
  int64_t* h = head.data_ptr<int64_t>();
  if (t.defined()) {
    h[0] = 1;
    h[1] = static_cast<int64_t>(t.scalar_type());
    h[2] = t.dim();
    for (int64_t d = 0; d < t.dim(); ++d) h[3 + d] = t.size(d);
  }
  for (int64_t b = 0; b < batches; ++b) h[3 + kMaxDims + b] = sizes[static_cast<size_t>(b)];
  const at::Tensor heads = dp.all_gather_rows(head);  // (W, head_len)
  const int64_t* H = heads.data_ptr<int64_t>();
  auto row = [&](int64_t r) { return H + r * head_len; };

  // One padded shape fits every rank: the largest row count and dim 1, equal other dims.
  int64_t first = -1;
  for (int64_t r = 0; r < W && first < 0; ++r)
    if (row(r)[0]) first = r;
  if (first < 0) return at::Tensor();
  const auto dtype = static_cast<at::ScalarType>(row(first)[1]);
  const int64_t dims = row(first)[2];
  std::vector<int64_t> shape(row(first) + 3, row(first) + 3 + dims);
  for (int64_t r = 0; r < W; ++r) {
    if (!row(r)[0]) continue;
    if (row(r)[2] != dims) throw RecipeError("evaluation outputs have a different number of dimensions on different ranks");
    for (int64_t d = 0; d < dims; ++d) {
      const int64_t n = row(r)[3 + d];
      if (d >= 2 && n != shape[static_cast<size_t>(d)])
        throw RecipeError("evaluation outputs differ in more than their second dimension between ranks");
      shape[static_cast<size_t>(d)] = std::max(shape[static_cast<size_t>(d)], n);
    }
  }
  // -100 marks padding as concat_padded does; unsigned and boolean outputs pad with 0.
  const double pad = dtype == at::kByte || dtype == at::kBool ? 0.0 : -100.0;
  at::Tensor padded = at::full(shape, pad, at::TensorOptions().dtype(dtype));
  if (t.defined()) {
    at::Tensor dst = padded.narrow(0, 0, t.size(0));
    if (dims > 1) dst = dst.narrow(1, 0, t.size(1));
    dst.copy_(t);
  }
  const at::Tensor all = dp.all_gather_rows(padded.reshape({-1}));  // (W, numel)

  std::vector<at::Tensor> parts;
  std::vector<int64_t> cursor(static_cast<size_t>(W), 0);
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t r = 0; r < W; ++r) {
      const int64_t n = row(r)[3 + kMaxDims + b];
      if (n == 0) continue;
      parts.push_back(all[r].view(shape).narrow(0, cursor[static_cast<size_t>(r)], n));
      cursor[static_cast<size_t>(r)] += n;
    }
  if (parts.empty()) {
    shape[0] = 0;
    return at::empty(shape, at::TensorOptions().dtype(dtype));
  }
  return at::cat(parts, 0);
}

}  // namespace runner::train
