// What a LoRA step of a Llama keeps between forward and backward without gradient
// checkpointing, with runner's single nodes against the same model whose layers run their own
// forwards: the SwiGLU product kept for down_proj's branch (kernels/swiglu_linear.h) and the
// norms' outputs kept for q/k/v's and gate/up's branches (kernels/rms_norm_linear.h):
//   build/scripts/bench/bench_lora_activation_memory [H L T]   (default: 512 wide, 4 layers, 2048 tokens)
// The model has Llama-3.1-8B's proportions at width H (intermediate 3.5·H, head_dim 128,
// 4 query heads per key/value head), vocabulary 128256, a bf16 base, LoRA r 16 / alpha 32 on
// every linear layer (fp32 adapters), CPU bf16 autocast, as finetune_gpu.py's lora_8b. Every
// activation of such a block is a multiple of H wide, so bytes / (token · layer · H) carries
// over to the 8B shape; the table extrapolates to it (H 4096, 32 layers, 2048 tokens).
// Counted: the CPU tensors alive after the loss's forward, less the loss itself; a layer's
// share as the difference of L and L - 1 layers. No-op forward hooks (as a sharding engine's)
// make the chosen layers run their own forwards.
#include <ATen/ATen.h>

#include <cstdio>
#include <cstdlib>

#include "runtime/device/autocast.h"
#include "runtime/models/builtin.h"
#include "runtime/models/llama_config.h"
#include "runtime/models/loss_only.h"
#include "runtime/models/lora.h"
#include "tests/cpu_memory_counter.h"

namespace m = runner::models;

namespace {

// own: which layers run their own forward ("down_proj", "norms").
int64_t held(int64_t h, int64_t layers, int64_t tokens, bool own_down, bool own_norms) {
  m::LlamaConfig c;
  c.vocab_size = 128256, c.hidden_size = h, c.intermediate_size = h * 7 / 2, c.num_hidden_layers = layers;
  c.num_attention_heads = h / 128, c.num_key_value_heads = std::max<int64_t>(1, h / 512), c.max_position_embeddings = tokens;
  at::manual_seed(0);
  m::ModulePtr model = m::make_llama(c);
  model->to(at::kBFloat16);
  m::LoraConfig lora;
  lora.r = 16, lora.alpha = 32, lora.target_modules = {"all-linear"};
  m::apply_lora(*model, lora);
  model->train();
  auto hook = [](const m::ModulePtr& module) {
    module->set_forward_hooks(
        std::make_shared<m::Module::ForwardHooks>(m::Module::ForwardHooks{[](m::Module&) {}, [](m::Module&, const std::vector<at::Tensor>&) {}}));
  };
  for (int64_t i = 0; i < layers; ++i) {
    const m::ModulePtr layer = model->child("model")->child("layers")->child(std::to_string(i));
    if (own_down) hook(layer->child("mlp")->child("down_proj"));
    if (own_norms) hook(layer->child("input_layernorm")), hook(layer->child("post_attention_layernorm"));
  }
  const at::Tensor ids = at::randint(c.vocab_size, {1, tokens}, at::kLong);
  runner::testing::CpuMemoryCounter counter;
  runner::device::AutocastGuard autocast(true, at::kCPU, at::kBFloat16);
  m::LossOnlyScope loss_only;
  const at::Tensor loss = model->forward_batch({{"input_ids", ids}, {"labels", ids}}).at("loss");
  return counter.live() - static_cast<int64_t>(loss.nbytes());
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t h = argc > 1 ? std::atoll(argv[1]) : 512, layers = argc > 2 ? std::atoll(argv[2]) : 4, tokens = argc > 3 ? std::atoll(argv[3]) : 2048;
  std::printf("width %lld, %lld layers, %lld tokens, bf16 base, LoRA r 16 all-linear, CPU bf16 autocast\n\n", static_cast<long long>(h),
              static_cast<long long>(layers), static_cast<long long>(tokens));
  std::printf("| single nodes | bytes kept | bytes / (token · layer · H) | at the 8B shape, 2048 tokens, GB |\n|---|---|---|---|\n");
  struct Variant {
    const char* name;
    bool own_down, own_norms;
  };
  for (const Variant& v : {Variant{"none (the layers' own forwards)", true, true}, Variant{"down_proj with the SwiGLU", false, true},
                           Variant{"that, and the branches' A on the norms", false, false}}) {
    // Twice with one layer more: the difference is one layer's, free of the embedding and loss.
    const int64_t all = held(h, layers, tokens, v.own_down, v.own_norms), fewer = held(h, layers - 1, tokens, v.own_down, v.own_norms);
    const double per = static_cast<double>(all - fewer) / static_cast<double>(tokens * h);
    std::printf("| %s | %lld | %.2f | %.2f |\n", v.name, static_cast<long long>(all), per, per * 2048.0 * 4096.0 * 32.0 / 1e9);
  }
  return 0;
}
