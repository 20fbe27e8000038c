// make_llama / from_pretrained against the real transformers (llama_reference.py, run with the
// build's Python): tiny random LlamaForCausalLM / Qwen2ForCausalLM / Qwen3ForCausalLM / MistralForCausalLM /
// Gemma3ForCausalLM saved
// by transformers load here and give the same logits, loss and gradients (fp32, rel 1e-5);
// what runner writes (model.safetensors + config.json) loads back in transformers.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <iostream>

#include "runtime/io/safetensors.h"
#include "runtime/models/activation_checkpoint.h"
#include "runtime/models/builtin.h"
#include "runtime/models/generation.h"
#include "runtime/models/kv_cache.h"
#include "runtime/models/pretrained.h"
#include "tests/models/model_test_util.h"

using namespace runner;
using namespace runner::models;
using runner::models::test::rel_error;

namespace {

constexpr double kTolerance = 1e-5;

at::Tensor find(const io::NamedTensors& ts, const std::string& name) { return test::find_named(ts, name); }

// 0 ok, 3 transformers missing (skip), else failure.
int make_reference_model(const std::string& dir, const std::string& model_type, const std::string& config_json) {
  test::write_text(dir + "/config_args.json", config_json);
  return test::run_python("llama_reference.py", "make " + dir + " " + model_type + " \"$(cat " + dir + "/config_args.json)\" 7");
}

io::NamedTensors run_reference(const std::string& model_dir, const std::string& work, const TensorMap& batch) {
  io::save_safetensors(work + "/batch.safetensors", io::NamedTensors(batch.begin(), batch.end()));
  const std::string out = work + "/reference.safetensors";
  const int status = test::run_python("llama_reference.py", "run " + model_dir + " " + work + "/batch.safetensors " + out);
  EXPECT_EQ(status, 0) << "llama_reference.py run failed";
  return status == 0 ? io::load_safetensors(out) : io::NamedTensors{};
}

struct Case {
  std::string name, model_type, config;
  TensorMap (*batch)();
};

// Right padding with a masked prompt: the plain causal path.
TensorMap plain_batch() {
  at::Tensor ids = at::randint(0, 96, {3, 14}, at::kLong);
  at::Tensor labels = ids.clone();
  labels.narrow(1, 0, 3).fill_(-100);
  labels[2].narrow(0, 10, 4).fill_(-100);
  return {{"input_ids", ids}, {"labels", labels}};
}

// Left padding through attention_mask (batched prompts): positions as in the reference,
// which does not derive them from the mask in a plain forward.
TensorMap left_padded_batch() {
  at::Tensor ids = at::randint(0, 96, {2, 12}, at::kLong);
  at::Tensor mask = at::ones({2, 12}, at::kLong);
  mask[1].narrow(0, 0, 4).fill_(0);
  at::Tensor labels = ids.clone();
  // The padding's labels; the first real token's is scored, predicted from the last padded
  // position, whose attention sees no key: its output is zeros as in transformers' SDPA
  // attention (the reference's), so no later token leaks into it (models/attention.cpp).
  labels[1].narrow(0, 0, 4).fill_(-100);
  return {{"input_ids", ids}, {"attention_mask", mask}, {"labels", labels}};
}

// Left padding whose padded positions hold id 0, Gemma's pad_token_id: its embedding row gets no
// gradient in transformers (padding_idx), and must not here either.
TensorMap left_padded_with_pad_ids() {
  TensorMap b = left_padded_batch();
  b.at("input_ids")[1].narrow(0, 0, 4).fill_(0);
  return b;
}

// Two sequences packed per row: position_ids restart where the second begins.
TensorMap packed_batch() {
  at::Tensor ids = at::randint(0, 96, {2, 13}, at::kLong);
  at::Tensor pos = at::cat({at::arange(6, at::kLong), at::arange(7, at::kLong)}).unsqueeze(0).repeat({2, 1});
  pos[1].copy_(at::cat({at::arange(9, at::kLong), at::arange(4, at::kLong)}));
  at::Tensor labels = ids.clone();
  labels.select(1, 0).fill_(-100);
  return {{"input_ids", ids}, {"position_ids", pos}, {"labels", labels}};
}

const char* kSizes = R"("vocab_size": 96, "hidden_size": 48, "intermediate_size": 80, "num_hidden_layers": 2,
  "num_attention_heads": 6, "max_position_embeddings": 64, "rms_norm_eps": 1e-5)";

std::vector<Case> cases() {
  return {
      {"LlamaGqaLlama3RopeUntied", "llama",
       std::string("{") + kSizes + R"(, "num_key_value_heads": 2, "tie_word_embeddings": false,
        "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                         "original_max_position_embeddings": 16}, "rope_theta": 500000.0})",
       plain_batch},
      {"LlamaAttentionBiasLeftPadding", "llama",
       std::string("{") + kSizes + R"(, "num_key_value_heads": 3, "attention_bias": true, "mlp_bias": true})", left_padded_batch},
      {"Qwen2TiedLeftPadding", "qwen2", std::string("{") + kSizes + R"(, "num_key_value_heads": 2, "tie_word_embeddings": true})",
       left_padded_batch},
      {"MistralSlidingWindowPacked", "mistral", std::string("{") + kSizes + R"(, "num_key_value_heads": 2, "sliding_window": 4})",
       packed_batch},
      // transformers' Mistral has no biases whatever attention_bias says; swish is silu
      {"MistralIgnoresAttentionBiasSwish", "mistral",
       std::string("{") + kSizes + R"(, "num_key_value_heads": 2, "sliding_window": 5, "attention_bias": true, "hidden_act": "swish"})",
       plain_batch},
      // Qwen 2's window only on the layers from max_window_layers on
      {"Qwen2WindowFromMaxWindowLayers", "qwen2",
       std::string("{") + kSizes + R"(, "num_key_value_heads": 3, "use_sliding_window": true, "sliding_window": 4, "max_window_layers": 1})",
       plain_batch},
      {"LlamaHeadDimPlain", "llama", std::string("{") + kSizes + R"(, "num_key_value_heads": 1, "head_dim": 16})", plain_batch},
      // Qwen 3: q_norm / k_norm over each head; head_dim apart from hidden_size / heads, as in
      // Qwen3-0.6B (1024 wide, 16 heads of 128)
      {"Qwen3QkNormHeadDimLeftPadding", "qwen3", std::string("{") + kSizes + R"(, "num_key_value_heads": 2, "head_dim": 16})",
       left_padded_batch},
      {"Qwen3AttentionBiasTiedPacked", "qwen3",
       std::string("{") + kSizes + R"(, "num_key_value_heads": 3, "head_dim": 8, "attention_bias": true, "tie_word_embeddings": true})",
       packed_batch},
      // Gemma 3: unit-offset norms around attention and the MLP, √C-scaled embeddings with the
      // pad row untrained (pad_token_id 0 is in the batch), GELU gating, per-head norms,
      // query_pre_attn_scalar apart from head_dim, local and global rotations (the full layer
      // with a linear-scaled rope), a window of 4 on the sliding layer
      {"Gemma3SandwichNormsLocalRopeWindow", "gemma3_text",
       std::string("{") + kSizes + R"(, "num_key_value_heads": 2, "head_dim": 16, "query_pre_attn_scalar": 12, "sliding_window": 4,
        "layer_types": ["sliding_attention", "full_attention"], "rope_theta": 50000.0, "rope_local_base_freq": 500.0,
        "rope_scaling": {"rope_type": "linear", "factor": 2.0}})",
       plain_batch},
      {"Gemma3DefaultsUntiedLeftPadding", "gemma3_text",
       std::string("{") + kSizes + R"(, "num_key_value_heads": 3, "head_dim": 8, "tie_word_embeddings": false, "attention_bias": true,
        "sliding_window_pattern": 2})",
       left_padded_with_pad_ids},
      {"Gemma3Packed", "gemma3_text", std::string("{") + kSizes + R"(, "num_key_value_heads": 1, "head_dim": 8, "sliding_window": 5})",
       packed_batch},
      {"Qwen3WindowFromMaxWindowLayers", "qwen3",
       std::string("{") + kSizes + R"(, "num_key_value_heads": 2, "head_dim": 8, "use_sliding_window": true, "sliding_window": 4, "max_window_layers": 1})",
       plain_batch},
  };
}

// Test names in ctest's output, not the parameter's bytes.
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class LlamaGolden : public ::testing::TestWithParam<Case> {};

TEST_P(LlamaGolden, LogitsLossAndGradientsMatchTransformers) {
  if (!test::python_torch_available()) GTEST_SKIP() << RUNNER_PYTHON " cannot import torch (run scripts/setup)";
  const Case& c = GetParam();
  const std::string dir = test::temp_dir("llama_golden_" + c.name);
  const int made = make_reference_model(dir, c.model_type, c.config);
  if (made == 3 << 8 || made == 3) GTEST_SKIP() << RUNNER_PYTHON " cannot import transformers (scripts/setup installs it from PyPI)";
  ASSERT_EQ(made, 0) << "llama_reference.py make failed";

  ModulePtr model = from_pretrained(dir);
  at::manual_seed(3);
  const TensorMap batch = c.batch();
  const io::NamedTensors ref = run_reference(dir, dir, batch);
  ASSERT_FALSE(ref.empty());

  model->train();
  TensorMap out = model->forward_batch(batch);
  out.at("loss").backward();
  const double logits_err = rel_error(out.at("logits"), find(ref, "logits"));
  const double loss_err = rel_error(out.at("loss"), find(ref, "loss"));
  EXPECT_LT(logits_err, kTolerance);
  EXPECT_LT(loss_err, kTolerance);
  const test::GradientReport grads = test::expect_gradients_match(*model, ref, kTolerance);
  const double worst_grad = grads.worst;
  const std::string& worst_name = grads.worst_name;
  const size_t compared = grads.compared;
  size_t reference_grads = 0;
  for (const auto& [n, t] : ref) reference_grads += n.rfind("grad.", 0) == 0;
  EXPECT_EQ(compared, reference_grads);
  std::cout << "[golden " << c.name << "] loss " << out.at("loss").item<double>() << " | max rel err: logits " << logits_err
            << ", loss " << loss_err << ", gradients " << worst_grad << " (" << worst_name << ")\n";
  std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Configs, LlamaGolden, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

// What runner writes (its state dict and hf_config_json) is a folder transformers loads, with
// the same logits: built by runner from a Lua-style config, not by transformers.
TEST(LlamaGoldenWrite, RunnerWrittenFolderLoadsInTransformers) {
  if (!test::python_torch_available()) GTEST_SKIP() << RUNNER_PYTHON " cannot import torch (run scripts/setup)";
  for (const std::string type : {"llama", "qwen2", "qwen3", "mistral", "gemma3_text"}) {
    LlamaConfig c;
    c.model_type = type;
    c.vocab_size = 96, c.hidden_size = 32, c.intermediate_size = 64, c.num_hidden_layers = 2, c.num_attention_heads = 4;
    c.num_key_value_heads = 2;
    c.max_position_embeddings = 64;
    c.tie_word_embeddings = type == "qwen2";
    c.qkv_bias = type == "qwen2";
    if (type == "mistral") c.sliding_window = 5;
    if (type == "qwen3") c.head_dim = 12, c.qkv_bias = c.o_bias = true;
    if (type == "gemma3_text") c.head_dim = 16, c.query_pre_attn_scalar = 10, c.sliding_window = 3, c.sliding_layers = {true, false}, c.pad_token_id = {0};
    c.rope.theta = 1e4;
    at::manual_seed(11);
    ModulePtr model = make_llama(c);
    const std::string dir = test::temp_dir("llama_write_" + type);
    io::save_safetensors(dir + "/model.safetensors", model->state_dict(), {{"format", "pt"}});
    test::write_text(dir + "/config.json", model->hf_config_json());
    TensorMap batch{{"input_ids", at::randint(0, 96, {2, 9}, at::kLong)}};
    const io::NamedTensors ref = run_reference(dir, dir, batch);
    if (ref.empty()) GTEST_SKIP() << "transformers unavailable";
    model->eval();
    const at::Tensor logits = model->forward_batch(batch).at("logits");
    EXPECT_LT(rel_error(logits, find(ref, "logits")), kTolerance) << type;
    // And back: the folder loads in runner too.
    EXPECT_TRUE(at::allclose(from_pretrained(dir)->forward_batch(batch).at("logits"), logits)) << type;
    std::filesystem::remove_all(dir);
  }
}

}  // namespace

namespace {

// Greedy decoding and beam search with the cache give transformers' generate() ids, on
// left-padded prompts of different lengths (positions and masks from attention_mask).
TEST(LlamaGoldenGenerate, GreedyAndBeamSearchMatchTransformers) {
  if (!test::python_torch_available()) GTEST_SKIP() << RUNNER_PYTHON " cannot import torch (run scripts/setup)";
  const std::string dir = test::temp_dir("llama_generate");
  const int made = make_reference_model(dir, "llama", std::string("{") + kSizes + R"(, "num_key_value_heads": 2, "eos_token_id": 2})");
  if (made == 3 << 8 || made == 3) GTEST_SKIP() << RUNNER_PYTHON " cannot import transformers (scripts/setup installs it from PyPI)";
  ASSERT_EQ(made, 0);
  ModulePtr model = from_pretrained(dir);
  at::manual_seed(5);
  at::Tensor ids = at::randint(3, 96, {3, 7}, at::kLong);
  at::Tensor mask = at::ones({3, 7}, at::kLong);
  mask[1].narrow(0, 0, 3).fill_(0);
  mask[2].narrow(0, 0, 5).fill_(0);
  ids.masked_fill_(mask.eq(0), 0);
  io::save_safetensors(dir + "/prompts.safetensors", {{"input_ids", ids}, {"attention_mask", mask}});
  for (int beams : {1, 3}) {
    const std::string out = dir + "/generated.safetensors";
    ASSERT_EQ(test::run_python("llama_reference.py", "generate " + dir + " " + dir + "/prompts.safetensors 12 " + std::to_string(beams) + " " + out), 0);
    const at::Tensor expected = find(io::load_safetensors(out), "ids");
    GenerationConfig g;
    g.max_new_tokens = 12;
    g.num_beams = beams;
    g.eos_token_id = {2};
    g.pad_token_id = 0;
    const at::Tensor got = generate(*model, ids, mask, g);
    ASSERT_EQ(got.sizes(), expected.sizes()) << "beams " << beams;
    EXPECT_TRUE(at::equal(got, expected)) << "beams " << beams << "\nrunner:\n" << got << "\ntransformers:\n" << expected;
  }
  std::filesystem::remove_all(dir);
}

// The cache changes the cost, not the result: incremental logits equal a full forward's.
TEST(LlamaGoldenGenerate, CachedLogitsEqualFullForward) {
  LlamaConfig c;
  c.vocab_size = 50, c.hidden_size = 32, c.intermediate_size = 48, c.num_hidden_layers = 2, c.num_attention_heads = 4;
  c.num_key_value_heads = 2;
  c.model_type = "mistral";
  c.sliding_window = 4;
  at::manual_seed(2);
  ModulePtr model = make_llama(c);
  model->eval();
  const at::Tensor ids = at::randint(0, 50, {2, 9}, at::kLong);
  const at::Tensor full = model->forward_batch({{"input_ids", ids}}).at("logits");
  KVCache cache;
  const at::Tensor first = model->forward_cached(ids.narrow(1, 0, 5), at::Tensor(), cache);
  const at::Tensor rest = model->forward_cached(ids.narrow(1, 5, 2), at::Tensor(), cache);  // T > 1 after a prefix
  const at::Tensor last = at::cat({model->forward_cached(ids.narrow(1, 7, 1), at::Tensor(), cache),
                                   model->forward_cached(ids.narrow(1, 8, 1), at::Tensor(), cache)}, 1);
  EXPECT_TRUE(at::allclose(at::cat({first, rest, last}, 1), full, 1e-5, 1e-5));
  EXPECT_EQ(cache.length(), 9);
  // logits_to_keep = 1 (generation's prefill): only the last position, the same values.
  KVCache fresh;
  const at::Tensor kept = model->forward_cached(ids, at::Tensor(), fresh, /*logits_to_keep=*/1);
  EXPECT_EQ(kept.sizes(), at::IntArrayRef({2, 1, 50}));
  EXPECT_TRUE(at::allclose(kept, full.narrow(1, 8, 1), 1e-5, 1e-5));
  EXPECT_EQ(fresh.length(), 9);
}

}  // namespace

namespace {

// gradient_checkpointing recomputes the decoder layers in backward: same loss and gradients.
TEST(LlamaCheckpointing, SameLossAndGradients) {
  LlamaConfig c;
  c.vocab_size = 40, c.hidden_size = 32, c.intermediate_size = 48, c.num_hidden_layers = 3, c.num_attention_heads = 4;
  c.num_key_value_heads = 2;
  const at::Tensor ids = at::randint(0, 40, {2, 10}, at::kLong);
  std::vector<at::Tensor> grads[2];
  double losses[2];
  for (int checkpointing = 0; checkpointing < 2; ++checkpointing) {
    at::manual_seed(4);
    ModulePtr model = make_llama(c);
    model->train();
    if (checkpointing) EXPECT_EQ(enable_gradient_checkpointing(*model), 3);
    at::Tensor loss = model->forward_batch({{"input_ids", ids}, {"labels", ids}}).at("loss");
    loss.backward();
    losses[checkpointing] = loss.item<double>();
    for (const auto& p : model->parameters()) grads[checkpointing].push_back(p.grad().clone());
  }
  EXPECT_DOUBLE_EQ(losses[0], losses[1]);
  ASSERT_EQ(grads[0].size(), grads[1].size());
  for (size_t i = 0; i < grads[0].size(); ++i) EXPECT_LT(rel_error(grads[1][i], grads[0][i]), 1e-6) << i;
}

}  // namespace
