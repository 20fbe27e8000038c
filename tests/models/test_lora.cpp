// LoRA (lora.h): which layers are adapted and frozen, the branch's arithmetic against plain
// ATen, the merged weights, peft's names and config, and the errors a recipe author meets.
// tests/integration/test_lora.py checks the files against the peft package itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>

#include <ATen/autocast_mode.h>
#include <c10/core/GradMode.h>
#include <torch/csrc/autograd/autograd.h>

#include "runtime/core/errors.h"
#include "runtime/models/activation_checkpoint.h"
#include "runtime/models/builtin.h"
#include "runtime/models/layers.h"
#include "runtime/models/llama_config.h"
#include "runtime/models/lora.h"
#include "runtime/models/saved_model.h"
#include "tests/autograd_graph_util.h"

namespace runner::models {
namespace {

using runner::testing::graph_count;

ModulePtr tiny_llama(uint64_t seed = 3) {
  LlamaConfig c;
  c.vocab_size = 50, c.hidden_size = 16, c.intermediate_size = 32, c.num_hidden_layers = 2, c.num_attention_heads = 4;
  c.num_key_value_heads = 2, c.max_position_embeddings = 32;
  at::manual_seed(seed);
  return make_llama(c);
}

std::vector<std::string> trainable_names(const Module& m) {
  std::vector<std::string> out;
  for (const auto& [name, t] : m.named_parameters())
    if (t.requires_grad()) out.push_back(name);
  return out;
}

void randomize_b(Module& m) {  // trained adapters: B is no longer zero
  c10::NoGradGuard no_grad;
  for (auto& [name, t] : m.named_parameters())
    if (name.find(".lora_B.") != std::string::npos) t.normal_(0.0, 0.5);
}

at::Tensor logits(Module& m, const at::Tensor& ids) { return m.forward_batch({{"input_ids", ids}}).at("logits"); }

// bf16 autocast on the CPU for one scope, as the Trainer opens it around forward.
struct CpuBf16Autocast {
  CpuBf16Autocast() {
    at::autocast::set_autocast_enabled(at::kCPU, true);
    at::autocast::set_autocast_dtype(at::kCPU, at::kBFloat16);
    at::autocast::increment_nesting();
  }
  ~CpuBf16Autocast() {
    if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
    at::autocast::set_autocast_enabled(at::kCPU, false);
  }
};

TEST(Lora, DefaultTargetsOfTheLlamaFamilyAreQAndVAndOnlyAdaptersTrain) {
  ModulePtr m = tiny_llama();
  apply_lora(*m, LoraConfig{});
  const std::vector<std::string> expected = {
      "model.layers.0.self_attn.q_proj.lora_A.weight", "model.layers.0.self_attn.q_proj.lora_B.weight",
      "model.layers.0.self_attn.v_proj.lora_A.weight", "model.layers.0.self_attn.v_proj.lora_B.weight",
      "model.layers.1.self_attn.q_proj.lora_A.weight", "model.layers.1.self_attn.q_proj.lora_B.weight",
      "model.layers.1.self_attn.v_proj.lora_A.weight", "model.layers.1.self_attn.v_proj.lora_B.weight"};
  EXPECT_EQ(trainable_names(*m), expected);
  ASSERT_TRUE(m->lora());
  EXPECT_EQ(m->lora()->adapted.size(), 4u);
  // A is (r, in), B (out, r) and starts at zero, as peft initialises them.
  const at::Tensor a = m->child("model")->child("layers")->child("0")->child("self_attn")->child("q_proj")->child("lora_A")->parameter("weight");
  const at::Tensor b = m->child("model")->child("layers")->child("0")->child("self_attn")->child("v_proj")->child("lora_B")->parameter("weight");
  EXPECT_EQ(a.sizes(), at::IntArrayRef({8, 16}));
  EXPECT_EQ(b.sizes(), at::IntArrayRef({8, 8}));  // v_proj: 2 kv heads × 4
  EXPECT_TRUE(at::equal(b, at::zeros_like(b)));
}

TEST(Lora, StartsAsTheBaseModelAndTheBranchIsScaledLowRank) {
  ModulePtr base = tiny_llama(), adapted = tiny_llama();
  base->eval(), adapted->eval();
  LoraConfig c;
  c.r = 4, c.alpha = 12, c.target_modules = {"o_proj", "down_proj"};
  apply_lora(*adapted, c);
  const at::Tensor ids = at::randint(0, 50, {2, 7}, at::kLong);
  EXPECT_TRUE(at::equal(logits(*base, ids), logits(*adapted, ids)));  // B = 0: a no-op

  // One adapted Linear against plain ATen: x·Wᵀ + (α/r)·x·Aᵀ·Bᵀ.
  auto lin = std::make_shared<Linear>(6, 5, true);
  auto root = std::make_shared<Sequential>(std::vector<ModulePtr>{lin});
  LoraConfig one;
  one.r = 3, one.alpha = 6, one.target_modules = {"0"};
  apply_lora(*root, one);
  randomize_b(*root);
  const at::Tensor x = at::randn({4, 6});
  const at::Tensor a = lin->child("lora_A")->parameter("weight"), b = lin->child("lora_B")->parameter("weight");
  const at::Tensor expected = at::linear(x, lin->weight, lin->bias) + at::mm(at::mm(x, a.t()), b.t()) * 2.0;
  EXPECT_TRUE(at::allclose(root->forward(x), expected, 1e-5, 1e-6));

  one.use_rslora = true;
  EXPECT_DOUBLE_EQ(one.scaling(), 6.0 / std::sqrt(3.0));
}

TEST(Lora, UnderAutocastTheBranchIsOneGemmOnTheUncastInputWithPeftsNumbers) {
  // A bf16 base with fp32 adapters (peft's autocast_adapter_dtype). peft casts the input to
  // fp32 (autocast casts it back for the matmul), then writes the branch, scales it and adds
  // it; runner takes the input as it is and adds the scaled branch in the GEMM's epilogue:
  // peft's numbers to bf16 rounding, forward and backward, with two conversions, the scaling
  // and the addition gone from the graph.
  auto lin = std::make_shared<Linear>(16, 8, false);
  lin->to(at::kBFloat16);
  auto root = std::make_shared<Sequential>(std::vector<ModulePtr>{lin});
  LoraConfig one;
  one.r = 4, one.alpha = 8, one.target_modules = {"0"};
  apply_lora(*root, one);
  randomize_b(*root);
  const at::Tensor a = lin->child("lora_A")->parameter("weight"), b = lin->child("lora_B")->parameter("weight");
  ASSERT_EQ(a.scalar_type(), at::kFloat);
  const at::Tensor x = at::randn({2, 5, 16}).to(at::kBFloat16).requires_grad_(true);  // (B, T, in), as in a model
  at::Tensor y, peft;
  {
    const CpuBf16Autocast autocast;
    y = root->forward(x);
    peft = at::linear(x, lin->weight) + at::linear(at::linear(x.to(at::kFloat), a), b) * 2.0;
  }
  ASSERT_EQ(y.scalar_type(), at::kBFloat16);
  auto near = [](const at::Tensor& got, const at::Tensor& want) {
    return (got.to(at::kFloat) - want.to(at::kFloat)).abs().max().item<double>() <= 2e-2 * (want.abs().max().item<double>() + 1e-3);
  };
  EXPECT_TRUE(near(y, peft));
  const at::Tensor up = at::randn({2, 5, 8}).to(at::kBFloat16);
  const auto ours = torch::autograd::grad({y}, {x, a, b}, {up}, /*retain_graph=*/true);
  const auto theirs = torch::autograd::grad({peft}, {x, a, b}, {up}, /*retain_graph=*/true);
  for (size_t i = 0; i < ours.size(); ++i) EXPECT_TRUE(near(ours[i], theirs[i])) << "gradient " << i;
  EXPECT_EQ(graph_count(peft, "ToCopyBackward0") - graph_count(y, "ToCopyBackward0"), 2);  // the input's two casts
  EXPECT_EQ(graph_count(y, "AddmmBackward0"), 1);
  auto scale_and_add = [](const at::Tensor& t) {  // by a scalar: MulBackward1
    return graph_count(t, "MulBackward0") + graph_count(t, "MulBackward1") + graph_count(t, "AddBackward0");
  };
  EXPECT_EQ(scale_and_add(y), 0);
  EXPECT_EQ(scale_and_add(peft), 2);
  // Without autocast the input is cast, as peft does: fp32 matmuls on an fp32 copy, the branch
  // added to the bf16 output in fp32 (PyTorch's promotion) and the sum rounded once.
  const at::Tensor plain = root->forward(x.detach());
  const at::Tensor branch = at::linear(at::linear(x.detach().to(at::kFloat), a), b) * 2.0;
  const at::Tensor want = (at::linear(x.detach(), lin->weight) + branch).to(at::kBFloat16);
  ASSERT_EQ((at::linear(x.detach(), lin->weight) + branch).scalar_type(), at::kFloat);
  EXPECT_TRUE(plain.equal(want));
}

TEST(Lora, OnlyAdaptersGetGradients) {
  ModulePtr m = tiny_llama();
  apply_lora(*m, LoraConfig{});
  randomize_b(*m);
  m->train();
  const at::Tensor ids = at::randint(0, 50, {2, 6}, at::kLong);
  m->forward_batch({{"input_ids", ids}, {"labels", ids}}).at("loss").backward();
  for (const auto& [name, t] : m->named_parameters()) {
    const bool adapter = name.find(".lora_") != std::string::npos;
    EXPECT_EQ(t.grad().defined(), adapter) << name;
  }
}

ModulePtr at_path(ModulePtr m, const std::string& path) {  // "model.layers.0.mlp.down_proj"
  for (size_t start = 0; m && start <= path.size();) {
    const size_t dot = std::min(path.find('.', start), path.size());
    m = m->child(path.substr(start, dot - start));
    start = dot + 1;
  }
  return m;
}

void no_op_hooks(Module& m) {  // as a sharding engine's: the module's own forward runs
  m.set_forward_hooks(std::make_shared<Module::ForwardHooks>(Module::ForwardHooks{[](Module&) {}, [](Module&, const std::vector<at::Tensor>&) {}}));
}

int nodes(const at::Tensor& loss, const char* name) { return runner::testing::graph_count_containing(loss, name); }

// A tiny Llama adapted with `c` and trained adapters (B not zero), in training mode; the same
// seed gives the same model.
ModulePtr adapted_llama(const LoraConfig& c, uint64_t seed) {
  ModulePtr m = tiny_llama();
  at::manual_seed(seed);
  apply_lora(*m, c);
  randomize_b(*m);
  m->train();
  return m;
}

// The layers the fused nodes would replace run their own forwards: hooks on both norms and
// down_proj of each of the tiny Llama's two layers.
void hook_norms_and_down_proj(const ModulePtr& model) {
  for (const std::string layer : {"model.layers.0.", "model.layers.1."})
    for (const char* name : {"input_layernorm", "post_attention_layernorm", "mlp.down_proj"}) {
      ModulePtr m = at_path(model, layer + name);
      ASSERT_TRUE(m) << layer << name;
      no_op_hooks(*m);
    }
}

// In a LoRA Llama the branches keep neither the norms' outputs nor the SwiGLU product for
// backward: q/k/v's and gate/up's A are one node per norm that keeps the norm's input instead
// (kernels/rms_norm_linear.h), down_proj with its branch and the SwiGLU before it is one node
// (kernels/swiglu_linear.h). The same loss and gradients as the layers' own forwards, without
// and under bf16 autocast, which a forward hook on a norm or on down_proj (as FSDP / ZeRO-3
// units put there) or the branch's dropout in training keeps.
TEST(Lora, LlamasBranchesKeepNeitherTheNormsOutputsNorTheSwiGLUProduct) {
  for (const bool autocast : {false, true}) {
    LoraConfig all;
    all.target_modules = {"all-linear"};
    ModulePtr fused = adapted_llama(all, 8), own = adapted_llama(all, 8);
    hook_norms_and_down_proj(own);
    const at::Tensor ids = at::randint(0, 50, {2, 6}, at::kLong);
    at::Tensor a, b;
    {
      std::optional<CpuBf16Autocast> on;
      if (autocast) on.emplace();
      a = fused->forward_batch({{"input_ids", ids}, {"labels", ids}}).at("loss");
      b = own->forward_batch({{"input_ids", ids}, {"labels", ids}}).at("loss");
    }
    EXPECT_EQ(nodes(a, "SwigluLinear"), 2) << autocast;
    EXPECT_EQ(nodes(a, "SwiGLU"), 0) << autocast;
    EXPECT_EQ(nodes(a, "RMSNormLinear"), 4) << autocast;  // one per norm: q, k, v's A together, gate and up's
    EXPECT_EQ(nodes(b, "SwigluLinear") + nodes(b, "RMSNormLinear"), 0) << autocast;
    EXPECT_EQ(nodes(b, "SwiGLU"), 2) << autocast;
    const double tolerance = autocast ? 2e-2 : 1e-5;  // bf16: the same ops, sums in another order
    EXPECT_TRUE(at::allclose(a, b, tolerance, 1e-7)) << autocast << " " << a.item<float>() - b.item<float>();
    a.backward(), b.backward();
    const NamedTensorList pa = fused->named_parameters(), pb = own->named_parameters();
    for (size_t i = 0; i < pa.size(); ++i) {
      ASSERT_EQ(pa[i].second.grad().defined(), pb[i].second.grad().defined()) << pa[i].first;
      if (!pa[i].second.grad().defined()) continue;
      const at::Tensor &ga = pa[i].second.grad(), &gb = pb[i].second.grad();
      EXPECT_LE((ga - gb).abs().max().item<double>(), tolerance * gb.abs().max().item<double>() + 1e-7) << autocast << " " << pa[i].first;
    }
  }
  // The branch's dropout runs in the layer's own forward (training only).
  ModulePtr dropped = tiny_llama();
  LoraConfig all;
  all.target_modules = {"all-linear"};
  all.dropout = 0.1;
  apply_lora(*dropped, all);
  dropped->train();
  const at::Tensor ids = at::randint(0, 50, {2, 6}, at::kLong);
  const at::Tensor train_loss = dropped->forward_batch({{"input_ids", ids}, {"labels", ids}}).at("loss");
  EXPECT_EQ(nodes(train_loss, "SwigluLinear") + nodes(train_loss, "RMSNormLinear"), 0);
  dropped->eval();
  const at::Tensor eval_loss = dropped->forward_batch({{"input_ids", ids}, {"labels", ids}}).at("loss");
  EXPECT_EQ(nodes(eval_loss, "SwigluLinear") + nodes(eval_loss, "RMSNormLinear"), 6);
}

// peft's default targets for the Llama family (q_proj, v_proj): one node on their two A's, each
// branch added to its own projection; k_proj runs its own forward; the MLP is frozen (its
// down_proj node keeps gate and up, as SwiGLU's would, and recomputes nothing in backward).
// The same loss and gradients as with hooks on the norms and down_proj.
TEST(Lora, LlamasDefaultTargetsShareOneNodeForQAndV) {
  ModulePtr fused = adapted_llama(LoraConfig{}, 9), own = adapted_llama(LoraConfig{}, 9);
  hook_norms_and_down_proj(own);
  const at::Tensor ids = at::randint(0, 50, {2, 6}, at::kLong);
  const at::Tensor a = fused->forward_batch({{"input_ids", ids}, {"labels", ids}}).at("loss");
  const at::Tensor b = own->forward_batch({{"input_ids", ids}, {"labels", ids}}).at("loss");
  EXPECT_EQ(nodes(a, "RMSNormLinear"), 2);
  EXPECT_EQ(nodes(a, "SwigluLinear"), 2);
  EXPECT_TRUE(at::allclose(a, b, 1e-6, 1e-7)) << a.item<float>() - b.item<float>();
  a.backward(), b.backward();
  const NamedTensorList pa = fused->named_parameters(), pb = own->named_parameters();
  int compared = 0;
  for (size_t i = 0; i < pa.size(); ++i) {
    ASSERT_EQ(pa[i].second.grad().defined(), pb[i].second.grad().defined()) << pa[i].first;
    if (!pa[i].second.grad().defined()) continue;
    EXPECT_TRUE(at::allclose(pa[i].second.grad(), pb[i].second.grad(), 1e-5, 1e-7)) << pa[i].first;
    ++compared;
  }
  EXPECT_EQ(compared, 8);  // q and v's A and B in 2 layers
}

// A sharding engine's units are modules with forward hooks (FSDP's size policy can pick
// self_attn, a projection, a norm or a branch's A or B): every module of a LoRA Llama that
// holds parameters runs its hooks in a training forward, and the loss is the unhooked one.
// Not hooked: the containers the root's forward walks through (model, model.layers) and
// lm_head, whose weight the fused loss reads.
TEST(Lora, EveryLlamaModuleWithParametersRunsItsForwardHooks) {
  LoraConfig all;
  all.target_modules = {"all-linear"};
  ModulePtr hooked = adapted_llama(all, 8), plain = adapted_llama(all, 8);
  std::map<std::string, int> pre;
  std::function<void(const ModulePtr&, const std::string&)> hook_all = [&](const ModulePtr& m, const std::string& path) {
    for (const auto& [name, child] : m->children()) {
      const std::string p = path.empty() ? name : path + "." + name;
      if (!child->named_parameters().empty() && p != "lm_head" && p != "model" && p != "model.layers") {
        pre[p] = 0;
        child->set_forward_hooks(std::make_shared<Module::ForwardHooks>(
            Module::ForwardHooks{[&pre, p](Module&) { ++pre[p]; }, [](Module&, const std::vector<at::Tensor>&) {}}));
      }
      hook_all(child, p);
    }
  };
  hook_all(hooked, "");
  ASSERT_GT(pre.count("model.layers.0.self_attn"), 0u);
  const at::Tensor ids = at::randint(0, 50, {2, 6}, at::kLong);
  const at::Tensor a = hooked->forward_batch({{"input_ids", ids}, {"labels", ids}}).at("loss");
  const at::Tensor b = plain->forward_batch({{"input_ids", ids}, {"labels", ids}}).at("loss");
  for (const auto& [name, calls] : pre) EXPECT_GE(calls, 1) << name << "'s forward hooks did not run";
  EXPECT_TRUE(at::allclose(a, b, 1e-6, 1e-7));
}

// The blocks' inputs come from the frozen embedding and need no gradient; the adapters inside
// a checkpointed block still get theirs, equal to the gradients without checkpointing.
TEST(Lora, GradientCheckpointingKeepsTheAdaptersGradients) {
  ModulePtr plain = tiny_llama(), ckpt = tiny_llama();
  for (const ModulePtr& m : {plain, ckpt}) {
    at::manual_seed(8);
    apply_lora(*m, LoraConfig{});
    randomize_b(*m);
    m->train();
  }
  EXPECT_EQ(enable_gradient_checkpointing(*ckpt), 2);
  const at::Tensor ids = at::randint(0, 50, {2, 6}, at::kLong);
  for (const ModulePtr& m : {plain, ckpt}) m->forward_batch({{"input_ids", ids}, {"labels", ids}}).at("loss").backward();
  const NamedTensorList a = plain->named_parameters(), b = ckpt->named_parameters();
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].second.grad().defined(), b[i].second.grad().defined()) << a[i].first;
    if (a[i].second.grad().defined()) EXPECT_TRUE(at::allclose(a[i].second.grad(), b[i].second.grad(), 1e-5, 1e-7)) << a[i].first;
  }
}

TEST(Lora, MergedWeightsGiveTheAdaptedModelsLogits) {
  ModulePtr m = tiny_llama();
  LoraConfig c;
  c.r = 2, c.alpha = 5, c.target_modules = {"all-linear"};
  apply_lora(*m, c);
  EXPECT_EQ(m->lora()->adapted.size(), 14u);  // 7 linear layers per block, not the head
  randomize_b(*m);
  m->eval();
  ModulePtr plain = tiny_llama(99);
  plain->load_state_dict(merged_state_dict(*m));  // strict: exactly the base model's keys
  plain->eval();
  const at::Tensor ids = at::randint(0, 50, {2, 9}, at::kLong);
  EXPECT_TRUE(at::allclose(logits(*plain, ids), logits(*m, ids), 1e-4, 1e-5));
}

TEST(Lora, GPT2Conv1DIsAdaptedTransposed) {
  GPTConfig g;
  g.vocab_size = 40, g.block_size = 16, g.n_layer = 1, g.n_head = 2, g.n_embd = 8, g.dropout = 0.0;
  at::manual_seed(5);
  ModulePtr m = make_gpt(g);
  apply_lora(*m, LoraConfig{});  // peft's default for gpt2: c_attn
  EXPECT_EQ(m->lora()->adapted, std::vector<std::string>{"transformer.h.0.attn.c_attn"});
  EXPECT_TRUE(m->lora()->fan_in_fan_out);
  randomize_b(*m);
  m->eval();
  at::manual_seed(5);
  ModulePtr plain = make_gpt(g);
  plain->load_state_dict(merged_state_dict(*m));
  plain->eval();
  const at::Tensor ids = at::randint(0, 40, {1, 10}, at::kLong);
  EXPECT_TRUE(at::allclose(logits(*plain, ids), logits(*m, ids), 1e-4, 1e-5));
}

TEST(Lora, AdapterStateDictUsesPeftNamesAndLoadsBack) {
  ModulePtr m = tiny_llama(), other = tiny_llama();
  apply_lora(*m, LoraConfig{});
  apply_lora(*other, LoraConfig{});
  randomize_b(*m);
  const NamedTensorList saved = adapter_state_dict(*m);
  ASSERT_EQ(saved.size(), 8u);
  EXPECT_EQ(saved.front().first, "base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight");
  const auto report = load_adapter_state_dict(*other, saved);
  EXPECT_TRUE(report.missing.empty());
  EXPECT_TRUE(report.unexpected.empty());
  const NamedTensorList back = adapter_state_dict(*other);
  for (size_t i = 0; i < saved.size(); ++i) EXPECT_TRUE(at::equal(saved[i].second, back[i].second)) << saved[i].first;

  NamedTensorList partial(saved.begin() + 1, saved.end());
  partial.emplace_back("base_model.model.lm_head.lora_A.weight", at::zeros({8, 16}));
  const auto r2 = load_adapter_state_dict(*other, partial);
  EXPECT_EQ(r2.missing, std::vector<std::string>{saved.front().first});
  EXPECT_EQ(r2.unexpected, std::vector<std::string>{"base_model.model.lm_head.lora_A.weight"});
}

TEST(Lora, SavedModelHoldsOnlyTheAdapters) {
  ModulePtr m = tiny_llama();
  EXPECT_EQ(saved_model(*m).weights_file, "model.safetensors");
  EXPECT_EQ(saved_model(*m).config.value("model_type", ""), "llama");
  LoraConfig c;
  c.r = 4, c.alpha = 16, c.dropout = 0.05, c.target_modules = {"q_proj", "k_proj"};
  apply_lora(*m, c);
  const SavedModel s = saved_model(*m);
  EXPECT_EQ(s.weights_file, "adapter_model.safetensors");
  EXPECT_EQ(s.config_file, "adapter_config.json");
  EXPECT_EQ(s.weights.size(), 8u);
  EXPECT_EQ(s.config["peft_type"], "LORA");
  EXPECT_EQ(s.config["r"], 4);
  EXPECT_EQ(s.config["lora_alpha"], 16.0);
  EXPECT_EQ(s.config["target_modules"], nlohmann::json({"q_proj", "k_proj"}));
  EXPECT_EQ(s.config["task_type"], "CAUSAL_LM");
  const LoraConfig back = lora_config_from_json(s.config, "adapter_config.json");
  EXPECT_EQ(back.r, 4);
  EXPECT_DOUBLE_EQ(back.alpha, 16.0);
  EXPECT_DOUBLE_EQ(back.dropout, 0.05);
  EXPECT_EQ(back.target_modules, c.target_modules);
}

TEST(Lora, RegexTargetsMatchWholeNames) {
  ModulePtr m = tiny_llama();
  LoraConfig c;
  c.target_regex = R"(model\.layers\.1\.mlp\.(up|gate)_proj)";
  apply_lora(*m, c);
  EXPECT_EQ(m->lora()->adapted, (std::vector<std::string>{"model.layers.1.mlp.gate_proj", "model.layers.1.mlp.up_proj"}));
  EXPECT_EQ(saved_model(*m).config["target_modules"], c.target_regex);
}

// A pattern reaching a submodule transformers' model has and runner's has not (an activation,
// a dropout) would save adapters peft refuses to load: refused as peft refuses it.
TEST(Lora, TargetsReachingTransformersOnlyModulesAreRefused) {
  LoraConfig c;
  c.target_regex = R"(model\.layers\.1\.mlp\..*)";
  try {
    apply_lora(*tiny_llama(), c);
    ADD_FAILURE() << "no error";
  } catch (const RecipeError& e) {
    EXPECT_NE(e.message().find("'model.layers.1.mlp.act_fn' is a SiLUActivation in transformers' model"), std::string::npos) << e.message();
  }
  GPTConfig g;
  g.vocab_size = 32, g.block_size = 8, g.n_layer = 1, g.n_head = 2, g.n_embd = 8;
  LoraConfig attn;
  attn.target_regex = R"(.*h\.0\.attn\..*)";
  EXPECT_THROW(apply_lora(*make_gpt(g), attn), RecipeError);
  LoraConfig dropout;
  dropout.target_modules = {"c_attn", "attn_dropout"};
  EXPECT_THROW(apply_lora(*make_gpt(g), dropout), RecipeError);
  c.target_regex = R"(model\.layers\.1\.mlp\..*_proj)";  // the linear layers alone
  EXPECT_NO_THROW(apply_lora(*tiny_llama(), c));
}

// all-linear on a sequence classifier leaves its head to modules_to_save, as peft does.
TEST(Lora, AllLinearOnAClassifierLeavesTheHeadWhole) {
  EncoderConfig e;
  e.vocab_size = 32, e.max_position_embeddings = 8, e.n_layer = 1, e.n_head = 2, e.hidden_size = 8, e.intermediate_size = 16, e.num_labels = 3;
  ModulePtr m = make_encoder_classifier(e);
  LoraConfig c;
  c.target_modules = {"all-linear"};
  c.task_type = "SEQ_CLS";
  apply_lora(*m, c);
  EXPECT_EQ(m->lora()->saved, std::vector<std::string>{"classifier"});
  EXPECT_EQ(m->lora()->adapted.size(), 7u);  // q, k, v, attention output, intermediate, output, pooler
  for (const auto& name : m->lora()->adapted) EXPECT_EQ(name.find("classifier"), std::string::npos) << name;
}

TEST(Lora, MistakesAreClearRecipeErrors) {
  auto message = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const RecipeError& e) {
      return e.message();
    }
    return std::string("no error");
  };
  LoraConfig missing;
  missing.target_modules = {"qkv_proj"};
  EXPECT_NE(message([&] { apply_lora(*tiny_llama(), missing); }).find("target modules [\"qkv_proj\"] not found"), std::string::npos);
  LoraConfig norm;
  norm.target_modules = {"norm"};
  const std::string refused = message([&] { apply_lora(*tiny_llama(), norm); });
  EXPECT_NE(refused.find("'model.norm' ("), std::string::npos) << refused;
  EXPECT_NE(refused.find(") cannot be adapted"), std::string::npos) << refused;
  LoraConfig zero;
  zero.r = 0;
  EXPECT_NE(message([&] { apply_lora(*tiny_llama(), zero); }).find("r must be >= 1"), std::string::npos);
  ModulePtr twice = tiny_llama();
  apply_lora(*twice, LoraConfig{});
  EXPECT_NE(message([&] { apply_lora(*twice, LoraConfig{}); }).find("already has LoRA adapters"), std::string::npos);
  auto mlp = std::make_shared<Sequential>(std::vector<ModulePtr>{std::make_shared<Linear>(2, 2)});
  EXPECT_NE(message([&] { apply_lora(*mlp, LoraConfig{}); }).find("give target_modules"), std::string::npos);
  LoraConfig bad_regex;
  bad_regex.target_regex = "(";
  EXPECT_NE(message([&] { apply_lora(*tiny_llama(), bad_regex); }).find("not a valid regular expression"), std::string::npos);
}

TEST(Lora, AdapterConfigsWithUnimplementedSettingsAreRefusedByKey) {
  nlohmann::json j = adapter_config_json(LoraConfig{});
  j["use_dora"] = true;
  EXPECT_THROW(
      {
        try {
          lora_config_from_json(j, "a/adapter_config.json");
        } catch (const CheckpointError& e) {
          EXPECT_NE(e.message().find("use_dora"), std::string::npos);
          throw;
        }
      },
      CheckpointError);
  j["use_dora"] = false;
  j["lora_bias"] = true;
  EXPECT_THROW(lora_config_from_json(j, "a/adapter_config.json"), CheckpointError);
  j["lora_bias"] = false;
  j["trainable_token_indices"] = {1, 2};
  EXPECT_THROW(lora_config_from_json(j, "a/adapter_config.json"), CheckpointError);
  j["trainable_token_indices"] = nullptr;
  j["modules_to_save"] = {"classifier", "score"};
  EXPECT_EQ(lora_config_from_json(j, "a/adapter_config.json").modules_to_save, (std::vector<std::string>{"classifier", "score"}));
  j["modules_to_save"] = "classifier";
  EXPECT_THROW(lora_config_from_json(j, "a/adapter_config.json"), CheckpointError);
  j["modules_to_save"] = nlohmann::json::array();  // peft reads an empty list as none
  EXPECT_TRUE(lora_config_from_json(j, "a/adapter_config.json").modules_to_save.empty());
  j["exclude_modules"] = {"k_proj"};
  EXPECT_EQ(lora_config_from_json(j, "a/adapter_config.json").exclude_modules, std::vector<std::string>{"k_proj"});
  j["exclude_modules"] = 3;
  EXPECT_THROW(lora_config_from_json(j, "a/adapter_config.json"), CheckpointError);
  j["exclude_modules"] = nullptr;
  j["modules_to_save"] = nullptr;
  j["peft_type"] = "IA3";
  EXPECT_THROW(lora_config_from_json(j, "a/adapter_config.json"), CheckpointError);
}

// DPO's reference and TRL's disable_dropout: AdaptersDisabled gives the base model's output
// (also through the fused SwiGLU path), DropoutDisabled the eval-mode output while the model
// stays in train mode, and a checkpointed block recomputes in backward as its forward ran.
TEST(LoRA, DisabledAdaptersGiveTheBaseAndDisabledDropoutTheEvalOutput) {
  LoraConfig c;
  c.init_lora_weights = false;  // a branch that changes the output
  c.target_modules = {"q_proj", "v_proj", "gate_proj", "up_proj", "down_proj"};
  ModulePtr base = tiny_llama(), adapted = tiny_llama();
  apply_lora(*adapted, c);
  const TensorMap batch{{"input_ids", at::randint(0, 50, {2, 7}, at::kLong)}};
  base->eval(), adapted->eval();
  const at::Tensor want = base->forward_batch(batch).at("logits");
  EXPECT_FALSE(at::allclose(adapted->forward_batch(batch).at("logits"), want, 1e-5, 1e-6));
  {
    const AdaptersDisabled off;
    EXPECT_TRUE(at::allclose(adapted->forward_batch(batch).at("logits"), want, 1e-5, 1e-6));
  }
  EXPECT_FALSE(at::allclose(adapted->forward_batch(batch).at("logits"), want, 1e-5, 1e-6));

  GPTConfig g;
  g.vocab_size = 40, g.block_size = 16, g.n_layer = 2, g.n_head = 2, g.n_embd = 16, g.dropout = 0.5;
  at::manual_seed(1);
  ModulePtr gpt = make_gpt(g);
  const TensorMap ids{{"input_ids", at::randint(0, 40, {2, 9}, at::kLong)}};
  gpt->eval();
  const at::Tensor eval_out = gpt->forward_batch(ids).at("logits");
  gpt->train();
  EXPECT_FALSE(at::allclose(gpt->forward_batch(ids).at("logits"), eval_out));  // dropout 0.5 is on
  const std::vector<std::string> blocks = gpt->no_split_modules();  // the checkpointed units
  std::function<void(Module&, bool)> set = [&](Module& m, bool on) {
    if (std::find(blocks.begin(), blocks.end(), m.type_name()) != blocks.end()) m.set_checkpointing(on);
    for (const auto& [name, child] : m.children()) set(*child, on);
  };
  auto grads = [&](bool checkpointed) {
    set(*gpt, checkpointed);
    for (auto& p : gpt->parameters()) p.mutable_grad() = at::Tensor();
    at::Tensor out;
    {
      const DropoutDisabled off;
      EXPECT_TRUE(gpt->is_training());
      out = gpt->forward_batch(ids).at("logits");
    }
    out.pow(2).sum().backward();  // outside the scope: a checkpointed block must still recompute without dropout
    std::vector<at::Tensor> g;
    for (auto& p : gpt->parameters()) g.push_back(p.grad().clone());
    return std::make_pair(out.detach(), g);
  };
  const auto [plain_out, plain_grads] = grads(false);
  EXPECT_TRUE(at::allclose(plain_out, eval_out, 1e-5, 1e-6));
  const auto [ckpt_out, ckpt_grads] = grads(true);
  EXPECT_TRUE(at::allclose(ckpt_out, eval_out, 1e-5, 1e-6));
  for (size_t i = 0; i < plain_grads.size(); ++i) EXPECT_TRUE(at::allclose(ckpt_grads[i], plain_grads[i], 1e-5, 1e-6)) << i;
}

}  // namespace
}  // namespace runner::models
