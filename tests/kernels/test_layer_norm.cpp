// LayerNorm written in autocast's low dtype (runtime/kernels/layer_norm.h) on the CPU side: the
// kernel is a GPU one, so here the module keeps ATen's layer_norm (fp32 under autocast, as
// nn.LayerNorm) whatever its feeds_matmuls flag, and the reference the GPU cases compare with
// (tests/kernels/test_layer_norm_gpu.cpp) is autocast's chain: fp32 layer_norm, then the cast.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include "runtime/device/autocast.h"
#include "runtime/kernels/layer_norm.h"
#include "runtime/models/builtin.h"
#include "runtime/models/layers.h"
#include "runtime/models/lora.h"

namespace k = runner::kernels;

TEST(LayerNormTo, TheKernelIsAGpuOne) {
  const at::Tensor x = at::randn({4, 8}), w = at::ones({8}), b = at::zeros({8});
  EXPECT_FALSE(k::layer_norm_to_takes_kernel(x, w, b, at::kBFloat16));
  EXPECT_THROW(k::layer_norm_to(x, w, b, 1e-5, at::kBFloat16), c10::Error);
}

TEST(LayerNormTo, ReferenceIsFp32LayerNormThenTheCast) {
  at::manual_seed(0);
  const at::Tensor x = at::randn({6, 40}).to(at::kBFloat16), w = at::randn({40}), b = at::randn({40});
  const at::Tensor ref = k::layer_norm_to_reference(x, w, b, 1e-5, at::kBFloat16);
  EXPECT_EQ(ref.scalar_type(), at::kBFloat16);
  EXPECT_TRUE(at::equal(ref, at::layer_norm(x.to(at::kFloat), {40}, w, b, 1e-5).to(at::kBFloat16)));
  EXPECT_TRUE(at::equal(k::layer_norm_to_reference(x, {}, {}, 1e-5, at::kHalf), at::layer_norm(x.to(at::kFloat), {40}).to(at::kHalf)));
}

TEST(LayerNormTo, ModuleOnTheCpuKeepsAtensNormUnderAutocast) {
  at::manual_seed(1);
  runner::models::LayerNorm norm({16});
  norm.feeds_matmuls = true;
  const at::Tensor x = at::randn({3, 16});
  at::Tensor y;
  {
    const runner::device::AutocastGuard autocast(true, at::kCPU, at::kBFloat16);
    y = norm.forward(x);
  }
  EXPECT_TRUE(at::equal(y, at::layer_norm(x, {16}, norm.weight, norm.bias, norm.eps)));  // fp32, as ATen's autocast leaves it
}

TEST(LayerNormTo, GptNormsFeedOnlyMatmulsUnlessALoraBranchReadsThem) {
  // GPT sets the flag on its norms at each forward; a LoRA branch on c_attn (peft's default for
  // GPT-2) also reads ln_1's output, which then stays ATen's fp32 (the branch's own path, and
  // the two consumers' gradients summed in fp32, as under peft).
  runner::models::GPTConfig c;
  c.vocab_size = 32;
  c.block_size = 8;
  c.n_layer = 1;
  c.n_head = 2;
  c.n_embd = 16;
  const runner::models::ModulePtr model = runner::models::make_gpt(c);
  auto norm = [&](const std::string& path) {
    runner::models::ModulePtr m = model;
    std::string rest = path;
    for (size_t dot; (dot = rest.find('.')) != std::string::npos; rest = rest.substr(dot + 1)) m = m->child(rest.substr(0, dot));
    return std::dynamic_pointer_cast<runner::models::LayerNorm>(m->child(rest));
  };
  const at::Tensor ids = at::randint(32, {2, 8}, at::kLong);
  model->forward_batch({{"input_ids", ids}});
  for (const char* path : {"transformer.h.0.ln_1", "transformer.h.0.ln_2", "transformer.ln_f"}) {
    ASSERT_TRUE(norm(path)) << path;
    EXPECT_TRUE(norm(path)->feeds_matmuls) << path;
  }
  runner::models::LoraConfig lora;
  lora.target_modules = {"c_attn"};
  runner::models::apply_lora(*model, lora);
  model->forward_batch({{"input_ids", ids}});
  EXPECT_FALSE(norm("transformer.h.0.ln_1")->feeds_matmuls);
  EXPECT_TRUE(norm("transformer.h.0.ln_2")->feeds_matmuls);
  EXPECT_TRUE(norm("transformer.ln_f")->feeds_matmuls);
}
