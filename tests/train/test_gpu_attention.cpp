// Attention on a GPU (ctest label `gpu`; each case skips, visibly, without a GPU, and fails
// when RUNNER_EXPECT_GPU=1): packed rows through the varlen flash kernel
// (kernels/packed_attention.h) against SDPA on each sequence alone, Llama's packed rows taking
// it in training with the same logits and gradients as the dense block-diagonal mask it
// replaces, grouped-query heads going to SDPA's flash kernel unrepeated, and left-padded rows
// training with finite gradients. Also prints the
// varlen kernel's time against that mask's (a measurement, not a target: docs/performance.md).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include <ATen/ATen.h>
#include <torch/csrc/autograd/autograd.h>

#include "runtime/device/autocast.h"
#include "runtime/models/activation_checkpoint.h"
#include "runtime/device/gpu_info.h"
#include "runtime/kernels/cuda_kernels.h"
#include "runtime/kernels/packed_attention.h"
#include "runtime/models/builtin.h"
#include "runtime/models/host_facts.h"
#include "tests/autograd_graph_util.h"
#include "tests/gpu_test_util.h"
#include "tests/gpu_timing.h"

using namespace runner;
using runner::testing::graph_count;
using runner::testing::graph_has;

namespace {

const at::Device kGpu(at::kCUDA, 0);

// Offsets of sequences of these lengths, as int32 on the GPU.
at::Tensor offsets(const std::vector<int64_t>& lengths) {
  std::vector<int32_t> cu{0};
  for (int64_t l : lengths) cu.push_back(cu.back() + static_cast<int32_t>(l));
  return at::tensor(cu, at::kInt).to(kGpu);
}

// (L, Hkv, D) -> (1, H, L, D) with each key/value head serving its group of query heads.
at::Tensor heads_first(const at::Tensor& x, int64_t heads) {
  return x.repeat_interleave(heads / x.size(1), 1).transpose(0, 1).unsqueeze(0);
}

double max_abs(const at::Tensor& a, const at::Tensor& b) { return (a.to(at::kFloat) - b.to(at::kFloat)).abs().max().item<double>(); }
// |a − b| / (|b| + 1) at worst: absolute below 1, relative above (a bf16 output of 4 is
// rounded by up to 0.008 on its own, before flash's bf16 probabilities add theirs).
double max_scaled(const at::Tensor& a, const at::Tensor& b) {
  const at::Tensor bf = b.to(at::kFloat);
  return ((a.to(at::kFloat) - bf).abs() / (bf.abs() + 1)).max().item<double>();
}

// The flash kernel needs sm80 or newer; deterministic algorithms (left on by a failed case)
// would rule it out.
#define REQUIRE_FLASH_GPU()                                                                          \
  REQUIRE_GPU();                                                                                     \
  if (kernels::cuda::compute_capability(kGpu) < 80) GTEST_SKIP() << "the flash kernel needs sm80+"; \
  at::globalContext().setDeterministicAlgorithms(false, false)

models::LlamaConfig small_llama() {
  models::LlamaConfig c;
  c.vocab_size = 64, c.hidden_size = 64, c.intermediate_size = 96, c.num_hidden_layers = 2, c.num_attention_heads = 4;
  c.num_key_value_heads = 2, c.max_position_embeddings = 64;  // head_dim 16
  return c;
}

}  // namespace

TEST(PackedAttentionGpu, EqualsSdpaOnEachSequenceAloneInBf16AndFp16) {
  REQUIRE_FLASH_GPU();
  // Two rows of 512 tokens: the first packs five sequences (one of a single token), the second
  // is one sequence. Grouped-query: 8 query heads over 2 key/value heads.
  const std::vector<int64_t> lengths{5, 120, 1, 250, 136, 512};
  const int64_t n = 1024, heads = 8, kv_heads = 2, d = 64;
  for (at::ScalarType dtype : {at::kBFloat16, at::kHalf}) {
    SCOPED_TRACE(c10::toString(dtype));
    ASSERT_TRUE(kernels::flash_attention_available(kGpu, dtype, d)) << "an sm80+ GPU has the flash kernel";
    EXPECT_FALSE(kernels::flash_attention_available(kGpu, at::kFloat, d));
    at::manual_seed(3);
    const auto opts = at::TensorOptions().device(kGpu).dtype(dtype);
    at::Tensor q = at::randn({n, heads, d}, opts).requires_grad_(true);
    at::Tensor k = at::randn({n, kv_heads, d}, opts).requires_grad_(true);
    at::Tensor v = at::randn({n, kv_heads, d}, opts).requires_grad_(true);
    const at::Tensor dy = at::randn({n, heads, d}, opts);
    const at::Tensor y = kernels::packed_attention(q, k, v, offsets(lengths), 512, dtype);
    ASSERT_EQ(y.sizes(), q.sizes());
    ASSERT_EQ(y.scalar_type(), dtype);
    y.backward(dy);
    // The reference: each sequence alone through SDPA in fp32, from the same rounded inputs.
    at::Tensor qf = q.detach().to(at::kFloat).requires_grad_(true), kf = k.detach().to(at::kFloat).requires_grad_(true),
               vf = v.detach().to(at::kFloat).requires_grad_(true);
    std::vector<at::Tensor> outs;
    int64_t start = 0;
    for (int64_t l : lengths) {
      auto part = [&](const at::Tensor& x) { return x.narrow(0, start, l); };
      const at::Tensor o = at::scaled_dot_product_attention(heads_first(part(qf), heads), heads_first(part(kf), heads),
                                                            heads_first(part(vf), heads), std::nullopt, 0.0, /*is_causal=*/true);
      outs.push_back(o.squeeze(0).transpose(0, 1));  // (L, H, D)
      start += l;
    }
    const at::Tensor ref = at::cat(outs);
    ref.backward(dy.to(at::kFloat));
    const double tol = dtype == at::kBFloat16 ? 2e-2 : 4e-3;
    EXPECT_LT(max_scaled(y, ref), tol);
    EXPECT_LT(max_abs(q.grad(), qf.grad()), 4 * tol);
    EXPECT_LT(max_abs(k.grad(), kf.grad()), 4 * tol);
    EXPECT_LT(max_abs(v.grad(), vf.grad()), 4 * tol);
    // The single-token sequence sees itself only: its output is its value row.
    EXPECT_LT(max_abs(y.narrow(0, 125, 1), v.detach().narrow(0, 125, 1).repeat_interleave(heads / kv_heads, 1)), 1e-6);
  }
}

TEST(PackedAttentionGpu, LlamaPackedRowsTakeTheVarlenKernelWithTheMasksLogitsAndGradients) {
  REQUIRE_FLASH_GPU();
  at::manual_seed(0);
  models::ModulePtr model = models::make_llama(small_llama());
  model->to(kGpu);
  model->train();
  // Row 0 packs sequences of 6, 3 and 7 tokens; row 1 is one sequence of 16.
  at::Tensor ids = at::randint(0, 64, {2, 16}, at::kLong);
  std::vector<int64_t> pos;
  for (int64_t l : {6, 3, 7})
    for (int64_t i = 0; i < l; ++i) pos.push_back(i);
  for (int64_t i = 0; i < 16; ++i) pos.push_back(i);
  const models::TensorMap host{{"input_ids", ids}, {"position_ids", at::tensor(pos, at::kLong).view({2, 16})}};
  models::TensorMap dev;
  for (const auto& [name, t] : host) dev[name] = t.to(kGpu);
  const at::Tensor upstream = at::randn({2, 16, 64}, at::TensorOptions().device(kGpu));
  // logits and the weights' gradients, with the host's facts (varlen) or without (the mask)
  auto run = [&](bool facts, bool* varlen) {
    for (auto& p : model->parameters())
      if (p.grad().defined()) p.mutable_grad().reset();
    at::Tensor logits;
    {
      const device::AutocastGuard autocast(true, at::kCUDA, at::kBFloat16);
      std::optional<models::HostFactsScope> scope;
      if (facts) scope.emplace(models::host_facts(host, dev));
      logits = model->forward_batch(dev).at("logits").to(at::kFloat);
    }
    *varlen = graph_has(logits, "FlashAttentionBackward0");
    (logits * upstream).sum().backward();
    std::vector<at::Tensor> grads;
    for (const auto& p : model->parameters()) grads.push_back(p.grad().clone());
    return std::make_pair(logits.detach(), grads);
  };
  bool varlen = false, masked_varlen = true, checkpointed_varlen = false;
  const auto [packed, packed_grads] = run(true, &varlen);
  const auto [masked, masked_grads] = run(false, &masked_varlen);
  EXPECT_TRUE(varlen) << "the host facts name the packed sequences: the varlen kernel should run";
  EXPECT_FALSE(masked_varlen) << "without them the model builds the mask";
  EXPECT_LT(max_abs(packed, masked), 5e-2);
  for (size_t i = 0; i < packed_grads.size(); ++i) {
    const double scale = masked_grads[i].abs().max().item<double>() + 1e-6;
    EXPECT_LT(max_abs(packed_grads[i], masked_grads[i]) / scale, 5e-2) << "parameter " << i;
  }
  // Under gradient checkpointing the sequences' offsets travel with each block's inputs into
  // backward's recompute: the same logits and gradients. (Dropping them would leave the
  // blocks with neither offsets nor mask: attention across the whole row, far off.)
  ASSERT_GT(models::enable_gradient_checkpointing(*model), 0);
  const auto [again, again_grads] = run(true, &checkpointed_varlen);
  EXPECT_LT(max_abs(again, packed), 1e-3);
  for (size_t i = 0; i < packed_grads.size(); ++i) {
    const double scale = packed_grads[i].abs().max().item<double>() + 1e-6;
    EXPECT_LT(max_abs(again_grads[i], packed_grads[i]) / scale, 1e-2) << "parameter " << i;
  }
  // The middle sequence of row 0 sees nothing of the first: it equals that sequence alone.
  bool alone_varlen = true;
  const models::TensorMap middle{{"input_ids", dev.at("input_ids").narrow(1, 6, 3).narrow(0, 0, 1)}};
  at::Tensor alone;
  {
    const device::AutocastGuard autocast(true, at::kCUDA, at::kBFloat16);
    alone = model->forward_batch(middle).at("logits").to(at::kFloat);
    alone_varlen = graph_has(alone, "FlashAttentionBackward0");
  }
  EXPECT_FALSE(alone_varlen);
  EXPECT_LT(max_abs(packed.narrow(1, 6, 3).narrow(0, 0, 1), alone), 5e-2);
  // A CUDA graph's static step asks for no sequences: the mask keeps its shapes fixed.
  const models::HostFacts fixed = models::host_facts(host, dev, /*sequences=*/false);
  EXPECT_TRUE(fixed.positions_restart.value);
  EXPECT_FALSE(fixed.sequences.cu_seqlens.defined());
}

TEST(PackedAttentionGpu, ASlidingWindowTakesTheKernelsWindowWithTheMasksLogits) {
  REQUIRE_FLASH_GPU();
  // A sliding window of 4 keys on the first layer only (Qwen2's per-layer choice; Mistral's is
  // every layer) on packed rows (sequences of 6, 3 and 7; one of 16): the kernel's window
  // against the windowed block-diagonal mask, forward and backward. Also Gemma 3's layer: its
  // queries scaled for query_pre_attn_scalar, the sliding layer's own rotation, sandwich norms.
  models::LlamaConfig gemma = small_llama();
  gemma.model_type = "gemma3_text", gemma.head_dim = 16, gemma.query_pre_attn_scalar = 8, gemma.local_rope.theta = 100;
  for (const std::string type : {"llama", "gemma3_text"}) {
    SCOPED_TRACE(type);
    models::LlamaConfig c = type == "llama" ? small_llama() : gemma;
    c.sliding_window = 4;
    c.sliding_layers = {true, false};
    at::manual_seed(2);
    models::ModulePtr model = models::make_llama(c);
    model->to(kGpu);
    model->train();
    std::vector<int64_t> pos;
    for (int64_t l : {6, 3, 7, 16})
      for (int64_t i = 0; i < l; ++i) pos.push_back(i);
    const models::TensorMap host{{"input_ids", at::randint(0, 64, {2, 16}, at::kLong)}, {"position_ids", at::tensor(pos, at::kLong).view({2, 16})}};
    models::TensorMap dev;
    for (const auto& [name, t] : host) dev[name] = t.to(kGpu);
    at::Tensor varlen, masked;
    {
      const device::AutocastGuard autocast(true, at::kCUDA, at::kBFloat16);
      {
        const models::HostFactsScope scope(models::host_facts(host, dev));
        varlen = model->forward_batch(dev).at("logits").to(at::kFloat);
      }
      masked = model->forward_batch(dev).at("logits").to(at::kFloat);
    }
    EXPECT_TRUE(graph_has(varlen, "FlashAttentionBackward0"));
    EXPECT_FALSE(graph_has(masked, "FlashAttentionBackward0"));
    EXPECT_LT(max_abs(varlen, masked), 5e-2);
    const at::Tensor up = at::randn(varlen.sizes(), varlen.options());
    std::vector<at::Tensor> params;
    for (const auto& p : model->parameters()) params.push_back(p);
    const auto g_varlen = torch::autograd::grad({varlen}, params, {up});
    const auto g_masked = torch::autograd::grad({masked}, params, {up});
    for (size_t i = 0; i < params.size(); ++i) {
      const double scale = g_masked[i].abs().max().item<double>() + 1e-6;
      EXPECT_LT(max_abs(g_varlen[i], g_masked[i]) / scale, 5e-2) << "parameter " << i;
    }
    // The window matters here: without it the last tokens of the long sequences would see more.
    models::LlamaConfig unwindowed = c;
    unwindowed.sliding_window = 1000;  // longer than any sequence (Gemma 3 needs a window)
    at::manual_seed(2);
    models::ModulePtr full = models::make_llama(unwindowed);
    full->to(kGpu);
    full->train();
    at::Tensor wide;
    {
      const device::AutocastGuard autocast(true, at::kCUDA, at::kBFloat16);
      wide = full->forward_batch(dev).at("logits").to(at::kFloat);
    }
    const double window_effect = max_abs(wide, masked);
    EXPECT_GT(window_effect, 0.05);
    EXPECT_LT(max_abs(varlen, masked), 0.2 * window_effect) << "the kernel's window differs from the mask's";
  }
}

TEST(PackedAttentionGpu, LlamasGroupedHeadsGoToAFusedSdpaKernelUnrepeatedWithTheCpusLogits) {
  REQUIRE_FLASH_GPU();
  at::manual_seed(0);
  models::ModulePtr cpu = models::make_llama(small_llama());  // 4 query heads over 2 key/value heads
  cpu->eval();
  at::manual_seed(0);
  models::ModulePtr gpu = models::make_llama(small_llama());
  gpu->to(kGpu);
  gpu->eval();
  const at::Tensor ids = at::randint(0, 64, {2, 16}, at::kLong);
  const at::Tensor expected = cpu->forward_batch({{"input_ids", ids}}).at("logits");
  at::Tensor logits;
  {
    const device::AutocastGuard autocast(true, at::kCUDA, at::kBFloat16);
    logits = gpu->forward_batch({{"input_ids", ids.to(kGpu)}}).at("logits").to(at::kFloat);
  }
  EXPECT_TRUE(graph_has(logits, "ScaledDotProductFlashAttentionBackward0") || graph_has(logits, "ScaledDotProductCudnnAttentionBackward0"))
      << "bf16 causal attention without a mask should reach a fused kernel";
  // The CPU repeats each key/value head for its group (an expand of k and of v per layer);
  // the GPU's graph has none of those.
  EXPECT_EQ(graph_count(expected, "ExpandBackward0") - graph_count(logits, "ExpandBackward0"), 2 * small_llama().num_hidden_layers);
  EXPECT_LT(max_abs(logits.cpu(), expected), 5e-2);
}

// Left padding hides every key from a padded query (causal: it comes before any real token).
// Such a row sees all keys instead (models/attention.cpp): with hidden scores alone its
// logsumexp sits near bf16's lowest, and cuDNN's backward, SDPA's first choice with a mask on
// sm90, returns NaN gradients for it at lengths of 64 mod 128 (pytorch#196678). A bf16 step on
// such a batch has finite gradients and the loss of its real rows.
TEST(PackedAttentionGpu, LeftPaddedRowsTrainWithFiniteGradientsUnderBf16) {
  REQUIRE_GPU();
  at::manual_seed(0);
  models::ModulePtr model = models::make_llama(small_llama());
  model->to(kGpu);
  model->train();
  const int64_t t = 64;
  const at::Tensor ids = at::randint(0, 64, {2, t}, at::kLong);
  at::Tensor mask = at::ones({2, t}, at::kLong);
  mask[0].narrow(0, 0, 20).zero_();  // 20 padded positions on the left of row 0
  const at::Tensor labels = ids.masked_fill(mask.eq(0), -100);
  at::Tensor loss;
  {
    const device::AutocastGuard autocast(true, at::kCUDA, at::kBFloat16);
    loss = model->forward_batch({{"input_ids", ids.to(kGpu)}, {"attention_mask", mask.to(kGpu)}, {"labels", labels.to(kGpu)}}).at("loss");
  }
  loss.backward();
  ASSERT_TRUE(std::isfinite(loss.item<double>()));
  for (const auto& [name, p] : model->named_parameters()) {
    ASSERT_TRUE(p.grad().defined()) << name;
    EXPECT_TRUE(at::isfinite(p.grad()).all().item<bool>()) << name << "'s gradient is not finite";
  }
  // The real positions' loss: row 0's 44 tokens alone, row 1 whole, in fp32 on the CPU.
  at::manual_seed(0);
  models::ModulePtr cpu = models::make_llama(small_llama());
  cpu->eval();
  model->eval();
  const at::Tensor alone = cpu->forward_batch({{"input_ids", ids[0].narrow(0, 20, 44).unsqueeze(0)}}).at("logits");
  at::Tensor padded;
  {
    const device::AutocastGuard autocast(true, at::kCUDA, at::kBFloat16);
    padded = model->forward_batch({{"input_ids", ids.to(kGpu)}, {"attention_mask", mask.to(kGpu)}}).at("logits").to(at::kFloat).cpu();
  }
  EXPECT_LT(max_abs(padded[0].narrow(0, 20, 44), alone[0]), 5e-2);
}

TEST(PackedAttentionGpu, PrintsTheVarlenKernelsTimeAgainstTheDenseMask) {
  REQUIRE_FLASH_GPU();
  // Llama-3.2-1B's attention shape (32 query heads, 8 key/value heads, head_dim 64), 4 rows of
  // 2048 tokens packing sequences of 256, bf16, forward and backward.
  const int64_t b = 4, t = 2048, heads = 32, kv_heads = 8, d = 64, len = 256;
  const auto opts = at::TensorOptions().device(kGpu).dtype(at::kBFloat16);
  at::Tensor q = at::randn({b * t, heads, d}, opts).requires_grad_(true);
  at::Tensor k = at::randn({b * t, kv_heads, d}, opts).requires_grad_(true);
  at::Tensor v = at::randn({b * t, kv_heads, d}, opts).requires_grad_(true);
  const at::Tensor cu = at::arange(0, b * t + 1, len, at::TensorOptions().device(kGpu).dtype(at::kInt));
  const at::Tensor seq = at::arange(t, at::TensorOptions().device(kGpu)).div(len, "floor");
  const at::Tensor pos = at::arange(t, at::TensorOptions().device(kGpu));
  const at::Tensor hide = seq.unsqueeze(1).ne(seq.unsqueeze(0)).logical_or(pos.unsqueeze(0).gt(pos.unsqueeze(1)));
  const at::Tensor mask = at::zeros({b, 1, t, t}, opts).masked_fill_(hide, -1e30);
  const double varlen = runner::testing::gpu_ms_per_call([&] { kernels::packed_attention(q, k, v, cu, len, at::kBFloat16).sum().backward(); }, 20);
  auto dense = [&](const at::Tensor& x, int64_t h) { return x.view({b, t, h, d}).transpose(1, 2).repeat_interleave(heads / h, 1); };
  const double masked = runner::testing::gpu_ms_per_call([&] {
    at::scaled_dot_product_attention(dense(q, heads), dense(k, kv_heads), dense(v, kv_heads), mask, 0.0, false).sum().backward();
  }, 20);
  std::printf("packed attention, 4 x 2048 tokens in sequences of 256, 32/8 heads of 64, bf16, forward + backward: "
              "varlen %.3f ms, SDPA with the block mask %.3f ms (%.1fx)\n", varlen, masked, masked / varlen);
  EXPECT_GT(varlen, 0.0);
}
