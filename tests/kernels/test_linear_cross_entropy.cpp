// The chunked linear + cross-entropy against plain ATen (linear → float → cross_entropy):
// loss and the gradients of hidden, weight and bias, with ignored rows, whole chunks of
// ignored rows, chunks that do not divide the rows, every reduction, soft-capping, tied
// weights, bf16 and autocast.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <ATen/autocast_mode.h>
#include <ATen/record_function.h>
#include <torch/csrc/autograd/autograd.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/kernels/linear_cross_entropy.h"
#include "tests/kernels/mean_scale_check.h"

using runner::kernels::linear_cross_entropy;
using runner::kernels::linear_cross_entropy_chunk_rows;
using runner::kernels::linear_cross_entropy_reference;
using Options = runner::kernels::LinearCrossEntropyOptions;

namespace {

// max |a − b| / max |b|: the error relative to the tensor's scale.
double rel(const at::Tensor& a, const at::Tensor& b) {
  const double scale = b.abs().max().item<double>();
  return (a.to(at::kDouble) - b.to(at::kDouble)).abs().max().item<double>() / (scale > 0 ? scale : 1.0);
}

struct Problem {
  at::Tensor hidden, weight, bias, labels;  // (N, H), (V, H), (V), (N)
};

// Rows 8..15 ignored (a whole chunk of 8), and a scattering of ignored rows elsewhere.
Problem problem(int64_t n, int64_t h, int64_t v, bool with_bias, at::ScalarType dtype = at::kFloat, uint64_t seed = 0) {
  at::manual_seed(seed);
  Problem p;
  p.hidden = at::randn({n, h}).to(dtype);
  p.weight = (at::randn({v, h}) * 0.5).to(dtype);
  if (with_bias) p.bias = at::randn({v}).to(dtype);
  p.labels = at::randint(v, {n}, at::kLong);
  if (n > 16) p.labels.narrow(0, 8, 8).fill_(-100);
  p.labels.masked_fill_(at::rand({n}).lt(0.2), -100);
  if (n > 16) p.labels[0] = 3;  // at least one row counts
  return p;
}

struct Result {
  at::Tensor loss, d_hidden, d_weight, d_bias;
};

// loss · 1.7 backward, so the gradients carry a grad_output other than 1.
Result evaluate(const Problem& p, const Options& o, bool fused) {
  const at::Tensor h = p.hidden.detach().clone().requires_grad_(true);
  const at::Tensor w = p.weight.detach().clone().requires_grad_(true);
  const at::Tensor b = p.bias.defined() ? p.bias.detach().clone().requires_grad_(true) : at::Tensor();
  const at::Tensor loss = fused ? linear_cross_entropy(h, w, b, p.labels, o) : linear_cross_entropy_reference(h, w, b, p.labels, o);
  (loss * 1.7).backward();
  return {loss.detach(), h.grad(), w.grad(), b.defined() ? b.grad() : at::Tensor()};
}

void expect_equal(const Result& fused, const Result& plain, double tol, const std::string& what) {
  EXPECT_EQ(fused.loss.scalar_type(), at::kFloat) << what;
  EXPECT_LE(rel(fused.loss, plain.loss), tol) << what << ": loss " << fused.loss.item<double>() << " vs " << plain.loss.item<double>();
  EXPECT_LE(rel(fused.d_hidden, plain.d_hidden), tol) << what << ": d hidden";
  EXPECT_LE(rel(fused.d_weight, plain.d_weight), tol) << what << ": d weight";
  EXPECT_EQ(fused.d_hidden.scalar_type(), plain.d_hidden.scalar_type()) << what;
  EXPECT_EQ(fused.d_weight.scalar_type(), plain.d_weight.scalar_type()) << what;
  if (plain.d_bias.defined()) EXPECT_LE(rel(fused.d_bias, plain.d_bias), tol) << what << ": d bias";
}

}  // namespace

TEST(LinearCrossEntropy, Fp32EqualsPlainAtenForEveryReductionAndChunking) {
  for (bool with_bias : {false, true}) {
    const Problem p = problem(37, 24, 101, with_bias);
    for (int64_t chunk : {0, 1, 8, 10, 37, 64}) {  // 10 does not divide 37; 8 makes rows 8..15 one all-ignored chunk
      for (int mode = 0; mode < 3; ++mode) {
        Options o;
        o.chunk_rows = chunk;
        if (mode == 1) o.reduction = Options::Reduction::kSum;
        if (mode == 2) o.num_items = 53;  // HF num_items_in_batch: the sum over this micro-batch / the step's items
        const std::string what = "bias " + std::to_string(with_bias) + " chunk " + std::to_string(chunk) + " mode " + std::to_string(mode);
        expect_equal(evaluate(p, o, true), evaluate(p, o, false), 1e-5, what);
      }
    }
  }
}

TEST(LinearCrossEntropy, SoftcapEqualsPlainAten) {
  const Problem p = problem(29, 16, 67, true, at::kFloat, 3);
  Options o;
  o.softcap = 2.5;  // small against the logits' spread, so the cap's derivative matters
  o.chunk_rows = 7;
  expect_equal(evaluate(p, o, true), evaluate(p, o, false), 1e-5, "softcap");
}

TEST(LinearCrossEntropy, MultiDimensionalRowsAndIntLabels) {
  Problem p = problem(24, 8, 33, false, at::kFloat, 4);
  p.hidden = p.hidden.view({2, 12, 8});
  p.labels = p.labels.view({2, 12}).to(at::kInt);
  Options o;
  o.chunk_rows = 5;
  expect_equal(evaluate(p, o, true), evaluate(p, o, false), 1e-5, "(B, T, H)");
}

TEST(LinearCrossEntropy, AllIgnoredIsNanWithZeroGradientsAsInAten) {
  Problem p = problem(12, 8, 19, true);
  p.labels.fill_(-100);
  Options o;
  o.chunk_rows = 5;
  const Result fused = evaluate(p, o, true), plain = evaluate(p, o, false);
  EXPECT_TRUE(std::isnan(plain.loss.item<double>()));
  EXPECT_TRUE(std::isnan(fused.loss.item<double>()));
  for (const at::Tensor& g : {fused.d_hidden, fused.d_weight, fused.d_bias}) EXPECT_EQ(g.abs().max().item<double>(), 0.0);
  for (const at::Tensor& g : {plain.d_hidden, plain.d_weight, plain.d_bias}) EXPECT_EQ(g.abs().max().item<double>(), 0.0);
}

TEST(LinearCrossEntropy, NoRowsGivesZeroGradientsOfTheParametersShapes) {
  // No chunk runs: the weight and bias gradients, which the first chunk would start, are zeros.
  Problem p = problem(0, 8, 19, true);
  const Result fused = evaluate(p, {}, true), plain = evaluate(p, {}, false);
  EXPECT_TRUE(std::isnan(fused.loss.item<double>()));
  EXPECT_TRUE(std::isnan(plain.loss.item<double>()));
  EXPECT_EQ(fused.d_weight.sizes(), p.weight.sizes());
  EXPECT_EQ(fused.d_bias.sizes(), p.bias.sizes());
  EXPECT_EQ(fused.d_weight.abs().max().item<double>(), 0.0);
  EXPECT_EQ(fused.d_bias.abs().max().item<double>(), 0.0);
}

TEST(LinearCrossEntropy, TiedEmbeddingGetsBothGradients) {
  // GPT-2's head: the embedding table is also the output projection, and its gradient is the
  // sum of the lookup's and the head's.
  at::manual_seed(5);
  const int64_t v = 41, h = 12;
  const at::Tensor ids = at::randint(v, {3, 9}, at::kLong);
  at::Tensor labels = at::randint(v, {3, 9}, at::kLong);
  labels.select(1, 0).fill_(-100);
  const at::Tensor table0 = at::randn({v, h});
  const at::Tensor mix0 = at::randn({h, h}) * 0.3;
  auto run = [&](bool fused) {
    const at::Tensor table = table0.clone().requires_grad_(true), mix = mix0.clone().requires_grad_(true);
    const at::Tensor x = at::tanh(at::embedding(table, ids).matmul(mix));  // (3, 9, H)
    Options o;
    o.chunk_rows = 4;
    const at::Tensor loss = fused ? linear_cross_entropy(x, table, {}, labels, o) : linear_cross_entropy_reference(x, table, {}, labels, o);
    loss.backward();
    return std::make_tuple(loss.detach(), table.grad(), mix.grad());
  };
  auto [loss_f, table_f, mix_f] = run(true);
  auto [loss_p, table_p, mix_p] = run(false);
  EXPECT_LE(rel(loss_f, loss_p), 1e-5);
  EXPECT_LE(rel(table_f, table_p), 1e-5);
  EXPECT_LE(rel(mix_f, mix_p), 1e-5);
  // Both paths reach the table: without the head's share its gradient would differ a lot.
  const at::Tensor lookup_only = at::zeros_like(table_p).index_add_(0, ids.flatten(), at::ones({27, h}));
  EXPECT_GT(rel(table_f, lookup_only), 0.5);
}

TEST(LinearCrossEntropy, Bf16IsAsCloseToFloat64AsThePlainBf16Path) {
  // Inputs in bf16: both paths run the matmuls in bf16 and the softmax in fp32, so both are
  // within bf16 rounding of the exact (float64) loss, and the fused one no further than the
  // plain one (twice its error, plus bf16's own resolution for values that round to zero).
  const Problem p = problem(64, 32, 203, true, at::kBFloat16, 6);
  Problem exact{p.hidden.to(at::kDouble), p.weight.to(at::kDouble), p.bias.to(at::kDouble), p.labels};
  Options o;
  o.chunk_rows = 24;
  const Result fused = evaluate(p, o, true), plain = evaluate(p, o, false), reference = evaluate(exact, o, false);
  EXPECT_EQ(fused.d_hidden.scalar_type(), at::kBFloat16);
  EXPECT_EQ(fused.d_weight.scalar_type(), at::kBFloat16);
  EXPECT_LE(rel(fused.loss, reference.loss), 2e-3);
  auto close = [&](const at::Tensor& f, const at::Tensor& pl, const at::Tensor& ex, const char* what) {
    const double err_f = rel(f, ex), err_p = rel(pl, ex);
    EXPECT_LE(err_f, 2 * err_p + 8e-3) << what << ": fused " << err_f << ", plain " << err_p;
    EXPECT_LE(rel(f, pl), 2e-2) << what;
  };
  close(fused.d_hidden, plain.d_hidden, reference.d_hidden, "d hidden");
  close(fused.d_weight, plain.d_weight, reference.d_weight, "d weight");
  close(fused.d_bias, plain.d_bias, reference.d_bias, "d bias");
}

TEST(LinearCrossEntropy, Bf16GradientsAreScaledByTheMeanInFloat) {
  runner::testing::expect_mean_gradients_scaled_in_float(at::kCPU);
}

TEST(LinearCrossEntropy, AutocastComputesInBf16AndReturnsFp32Gradients) {
  // fp32 master weights under CPU autocast: the plain path's at::linear runs in bf16, the
  // fused one must too, and each parameter's gradient comes back in its own dtype (fp32).
  const Problem p = problem(48, 32, 97, true, at::kFloat, 7);
  Options o;
  o.chunk_rows = 16;
  Result fused, plain;
  {
    at::autocast::set_autocast_enabled(at::kCPU, true);
    at::autocast::set_autocast_dtype(at::kCPU, at::kBFloat16);
    at::autocast::increment_nesting();
    fused = evaluate(p, o, true);
    plain = evaluate(p, o, false);
    at::autocast::decrement_nesting();
    at::autocast::clear_cache();
    at::autocast::set_autocast_enabled(at::kCPU, false);
  }
  const Result exact = evaluate(p, o, false);  // fp32 throughout
  EXPECT_EQ(fused.d_weight.scalar_type(), at::kFloat);
  EXPECT_EQ(fused.d_hidden.scalar_type(), at::kFloat);
  // Both are bf16 computations: equally far from fp32, much farther than fp32 rounding.
  EXPECT_LE(rel(fused.loss, plain.loss), 5e-3);
  EXPECT_GT(rel(fused.d_weight, exact.d_weight), 1e-4);  // it did compute in bf16
  EXPECT_LE(rel(fused.d_weight, exact.d_weight), 2 * rel(plain.d_weight, exact.d_weight) + 4e-3);
  EXPECT_LE(rel(fused.d_hidden, exact.d_hidden), 2 * rel(plain.d_hidden, exact.d_hidden) + 4e-3);
}

TEST(LinearCrossEntropy, WithoutGradientsOnlyTheLoss) {
  const Problem p = problem(40, 16, 57, true);
  Options o;
  o.chunk_rows = 9;
  const at::Tensor plain = linear_cross_entropy_reference(p.hidden, p.weight, p.bias, p.labels, o);
  {
    c10::NoGradGuard no_grad;
    EXPECT_LE(rel(linear_cross_entropy(p.hidden.requires_grad_(true), p.weight, p.bias, p.labels, o), plain), 1e-5);
  }
  const at::Tensor loss = linear_cross_entropy(p.hidden.detach(), p.weight, p.bias, p.labels, o);  // nothing requires grad
  EXPECT_FALSE(loss.requires_grad());
  EXPECT_LE(rel(loss, plain), 1e-5);
}

TEST(LinearCrossEntropy, FrozenWeightGetsNoGradient) {
  // LoRA: the head is frozen, only the hidden states need a gradient.
  const Problem p = problem(30, 16, 45, false);
  const at::Tensor h = p.hidden.clone().requires_grad_(true);
  const at::Tensor w = p.weight.clone();
  Options o;
  o.chunk_rows = 7;
  linear_cross_entropy(h, w, {}, p.labels, o).backward();
  const at::Tensor h2 = p.hidden.clone().requires_grad_(true);
  linear_cross_entropy_reference(h2, w, {}, p.labels, o).backward();
  EXPECT_FALSE(w.grad().defined());
  EXPECT_LE(rel(h.grad(), h2.grad()), 1e-5);
}

TEST(LinearCrossEntropy, DoubleBackwardIsRefused) {
  const Problem p = problem(10, 4, 7, false);
  const at::Tensor h = p.hidden.clone().requires_grad_(true);
  const at::Tensor loss = linear_cross_entropy(h, p.weight, {}, p.labels);
  EXPECT_THROW(torch::autograd::grad({loss}, {h}, {}, /*retain_graph=*/true, /*create_graph=*/true), c10::Error);
}

TEST(LinearCrossEntropy, ShapeErrorsNameTheShapes) {
  const Problem p = problem(10, 4, 7, false);
  EXPECT_THROW(linear_cross_entropy(p.hidden, p.weight.t(), {}, p.labels), c10::Error);
  EXPECT_THROW(linear_cross_entropy(p.hidden, p.weight, {}, p.labels.narrow(0, 0, 9)), c10::Error);
  EXPECT_THROW(linear_cross_entropy(p.hidden, p.weight, {}, p.labels.to(at::kFloat)), c10::Error);
}

TEST(LinearCrossEntropy, ChunkRowsBoundTheLogits) {
  // A chunk's logits about as large as the hidden states, at least 4M elements, at most N rows.
  EXPECT_EQ(linear_cross_entropy_chunk_rows(16384, 2048, 128256), 264);  // Llama 3.2 1B, 8 × 2048 tokens
  EXPECT_EQ(linear_cross_entropy_chunk_rows(8192, 768, 50257), 128);     // GPT-2, 8 × 1024
  EXPECT_EQ(linear_cross_entropy_chunk_rows(100, 64, 65), 100);          // small: one chunk
  EXPECT_EQ(linear_cross_entropy_chunk_rows(1, 8, 1 << 30), 1);
  // On a GPU: fewer, larger chunks (each one after the first reads and writes the whole weight gradient).
  EXPECT_EQ(linear_cross_entropy_chunk_rows(16384, 2048, 128256, runner::kernels::kGpuChunkElements), 2096);
  EXPECT_EQ(linear_cross_entropy_chunk_rows(2048, 2048, 128256, runner::kernels::kGpuChunkElements), 2048);  // full_1b: one chunk
  EXPECT_EQ(linear_cross_entropy_chunk_rows(8192, 768, 50257, runner::kernels::kGpuChunkElements), 5344);   // GPT-2: two
  // ATen's path on a GPU (a soft cap, RUNNER_FUSED_KERNELS=0) holds an fp32 copy and temporaries: smaller.
  EXPECT_EQ(linear_cross_entropy_chunk_rows(16384, 2048, 128256, runner::kernels::kGpuAtenChunkElements), 528);
}

namespace {

// What the GEMMs of one fused call were given (RecordFunction callbacks are plain function
// pointers, so the observer's state is file-wide).
struct GemmArgs {
  int64_t h = 0, v = 0, padded_stride = 0, padded = 0;
  std::vector<std::string> other;  // (m, V) matrices at any other layout
};
GemmArgs gemm_args;

std::unique_ptr<at::ObserverContext> observe_gemm(const at::RecordFunction& fn) {
  const std::string name = fn.name();
  if (name != "aten::mm" && name != "aten::addmm" && name != "aten::addmm_") return nullptr;
  for (const c10::IValue& arg : fn.inputs()) {
    if (!arg.isTensor() || arg.toTensor().dim() != 2) continue;
    const at::Tensor& t = arg.toTensor();
    const int64_t vocab_dim = t.size(0) == gemm_args.v ? 0 : t.size(1) == gemm_args.v ? 1 : -1;
    if (vocab_dim < 0 || t.size(1 - vocab_dim) == gemm_args.h) continue;  // not the (m, V) logits or their gradient
    if (t.stride(vocab_dim) == 1 && t.stride(1 - vocab_dim) == gemm_args.padded_stride) {
      ++gemm_args.padded;
    } else {
      std::ostringstream what;
      what << name << " " << t.sizes() << " strides " << t.strides();
      gemm_args.other.push_back(what.str());
    }
  }
  return nullptr;
}

}  // namespace

TEST(LinearCrossEntropy, ChunkGemmsWriteAndReadLogitRowsAtThePaddedStride) {
  // Every matrix of V = 101 columns a GEMM takes (the chunk's logits as mm's output, their
  // gradient as the input of the d hidden and d weight GEMMs) has its rows 128 elements apart;
  // the weight (V, H) is the only other one. fp32 and bf16 compute (bf16: ATen's path copies
  // the fp32 gradient into padded rows).
  for (const at::ScalarType dtype : {at::kFloat, at::kBFloat16}) {
    gemm_args = GemmArgs{24, 101, runner::kernels::linear_cross_entropy_row_stride(101)};
    ASSERT_EQ(gemm_args.padded_stride, 128);
    const Problem p = problem(37, gemm_args.h, gemm_args.v, false, dtype);
    const at::CallbackHandle handle = at::addThreadLocalCallback(at::RecordFunctionCallback(observe_gemm).needsInputs(true));
    Options o;
    o.chunk_rows = 10;  // 4 chunks
    evaluate(p, o, true);
    at::removeCallback(handle);
    EXPECT_TRUE(gemm_args.other.empty()) << c10::toString(dtype) << ": " << (gemm_args.other.empty() ? "" : gemm_args.other.front());
    EXPECT_EQ(gemm_args.padded, 4 * 3) << c10::toString(dtype);  // per chunk: the logits, and the gradient in two GEMMs
  }
}

TEST(LinearCrossEntropy, ChunkLogitRowsStartAlignedForAnyVocabulary) {
  // GPT-2's odd vocabulary gets rows 50304 elements apart (what nanoGPT pads the model to);
  // the fused results above (V = 101 and others, rows 128 apart) show the padding is never read.
  using runner::kernels::linear_cross_entropy_row_stride;
  EXPECT_EQ(linear_cross_entropy_row_stride(50257), 50304);
  EXPECT_EQ(linear_cross_entropy_row_stride(128256), 128256);  // Llama 3's is a multiple of 64 already
  EXPECT_EQ(linear_cross_entropy_row_stride(101), 128);
  EXPECT_EQ(linear_cross_entropy_row_stride(1), 64);
}
