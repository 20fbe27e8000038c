#pragma once
// Linear + cross-entropy without the logits: loss(hidden·Wᵀ + b, labels) computed over
// chunks of rows, each chunk's gradient taken in the same pass, so only one chunk's logits
// ever exist (Liger's fused linear cross-entropy). A language model's (N, V) logits are the
// largest tensor of its step (N = 16k tokens × V = 128k is 8 GiB in fp32, 3× that with the
// log-softmax and its gradient); this keeps (chunk, V) of them instead, plus hidden-sized
// gradients. Equal to the plain ATen path (linear → float → cross_entropy) to float rounding
// (tests/kernels/test_linear_cross_entropy.cpp).
//
// Precision follows the plain path under autocast: the matmuls run in the compute dtype (the
// autocast dtype when autocast is on for the device, else the inputs'), the log-softmax in
// fp32; the weight's gradient is summed over chunks in fp32. The step never waits for the
// device: the item count stays a device tensor.
#include <cstdint>

#include <ATen/core/Tensor.h>

namespace runner::kernels {

struct LinearCrossEntropyOptions {
  int64_t ignore_index = -100;  // rows with this label count neither in the loss nor in the mean
  enum class Reduction { kMean, kSum } reduction = Reduction::kMean;  // mean over the rows that count, or sum
  // > 0: the sum divided by this (HF's num_items_in_batch); `reduction` is then not used.
  double num_items = 0;
  // > 0: logits soft-capped to cap·tanh(logits / cap) before the softmax (Gemma 2's
  // final_logit_softcapping).
  double softcap = 0;
  int64_t chunk_rows = 0;  // rows per chunk; 0: linear_cross_entropy_chunk_rows
};

// hidden (*, H) any float dtype, weight (V, H), bias (V) or undefined, labels (*) integer
// class ids. Returns the fp32 scalar loss, differentiable in hidden, weight and bias (one
// backward; create_graph is refused). A weight shared with an embedding (tied) gets both
// gradients, as autograd sums them.
at::Tensor linear_cross_entropy(const at::Tensor& hidden, const at::Tensor& weight, const at::Tensor& bias, const at::Tensor& labels,
                                const LinearCrossEntropyOptions& options = {});

// Whether linear_cross_entropy(hidden, weight, ...) takes each chunk's loss and gradient with
// runner's CUDA row kernel (cuda/cross_entropy.cu) rather than ATen's ops: on a GPU, with the
// kernels built and on, no soft cap, a compute dtype they take. Call it where the loss would
// be computed: autocast decides the compute dtype.
bool linear_cross_entropy_uses_row_kernel(const at::Tensor& hidden, const at::Tensor& weight, const LinearCrossEntropyOptions& options = {});

// The plain ATen computation the fused one equals (the reference of the tests and benchmark):
// the whole (N, V) logits, upcast to fp32, soft-capped, cross_entropy.
at::Tensor linear_cross_entropy_reference(const at::Tensor& hidden, const at::Tensor& weight, const at::Tensor& bias,
                                          const at::Tensor& labels, const LinearCrossEntropyOptions& options = {});

// Rows per chunk for N rows of width H over V classes: a chunk's logits about as large as the
// hidden states (N·H elements, Liger's choice), and at least `min_elements` so a short batch
// does not run many thin matmuls; a multiple of 8, at most N. Under bf16 autocast on the CPU
// every chunk after the first writes and re-reads a bf16 (V, H) weight gradient and adds it
// into the fp32 sum: 12 bytes per weight (on a GPU cuBLAS now adds into the fp32 sum itself,
// mm's out_dtype: 8), against the chunk's 6·m·H·V GEMM FLOPs, so on an H200 (about 700
// TFLOP/s of bf16 matmul, 4.8 TB/s) those 12 bytes cost about 292/m of the chunk's GEMM time
// for m rows (418/m at an H100's 3.35 TB/s): 55% at the 528-row chunks that a 64M floor
// gave Llama-3.2-1B's 2048-token step. So the floor is 4M elements (16 MiB of fp32 logits) on
// the CPU and, on a GPU, 256M with runner's row kernel (512 MiB of bf16 logits, 1 GiB of fp32;
// 8 × 1024 GPT-2 tokens in 2 chunks, 2048 Llama tokens in one) but 64M on ATen's path, which
// holds an fp32 copy of the chunk and its temporaries besides.
int64_t linear_cross_entropy_chunk_rows(int64_t n, int64_t h, int64_t v, int64_t min_elements = int64_t{1} << 22);
constexpr int64_t kGpuChunkElements = int64_t{1} << 28;
constexpr int64_t kGpuAtenChunkElements = int64_t{1} << 26;

// The distance, in elements, between the rows of a chunk's (rows, V) logits and of their
// gradient: V rounded up to a multiple of 64. Unless V is a multiple of 8 (bf16) or 4 (fp32),
// rows start at addresses that are not 16-byte aligned, and cuBLAS runs such a matrix with
// its slow kernels; the chunk's logits GEMM and both gradient GEMMs write or read one (why
// nanoGPT pads GPT-2's 50257 to 50304). The padding columns are never read: the model's
// vocabulary stays V. (With a bias on a GPU the logits stay contiguous: see the .cpp.)
int64_t linear_cross_entropy_row_stride(int64_t v);

}  // namespace runner::kernels
