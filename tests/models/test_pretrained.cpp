#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

#include <nlohmann/json.hpp>

#include "runtime/core/errors.h"
#include "runtime/io/safetensors.h"
#include "runtime/models/builtin.h"
#include "runtime/models/gpt_config.h"
#include "runtime/models/llama_config.h"
#include "runtime/models/pretrained.h"
#include "tests/models/model_test_util.h"

using namespace runner;
using namespace runner::models;
namespace fs = std::filesystem;

namespace {

GPTConfig tiny() {
  GPTConfig c;
  c.vocab_size = 40;
  c.block_size = 8;
  c.n_layer = 1;
  c.n_head = 2;
  c.n_embd = 16;
  return c;
}

const char* kConfig = R"({"model_type": "gpt2", "vocab_size": 40, "n_positions": 8, "n_embd": 16, "n_layer": 1, "n_head": 2})";

void expect_same_state(const Module& a, const Module& b) {
  const auto x = a.state_dict(), y = b.state_dict();
  ASSERT_EQ(x.size(), y.size());
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(x[i].first, y[i].first);
    EXPECT_TRUE(x[i].second.equal(y[i].second)) << x[i].first;
  }
}

std::string checkpoint_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const CheckpointError& e) {
    return e.what();
  }
  return "(no CheckpointError)";
}

}  // namespace

TEST(Pretrained, SavedStateDictLoadsBackExactly) {
  const std::string dir = test::temp_dir("roundtrip");
  auto a = make_gpt(tiny());
  io::save_safetensors(dir + "/model.safetensors", a->state_dict(), {{"format", "pt"}});
  test::write_text(dir + "/config.json", kConfig);
  auto b = make_gpt(tiny());
  auto report = load_weights(*b, dir + "/model.safetensors");
  EXPECT_TRUE(report.missing.empty());
  EXPECT_TRUE(report.unexpected.empty());
  expect_same_state(*a, *b);
  auto c = from_pretrained(dir);
  expect_same_state(*a, *c);
  EXPECT_TRUE(c->child("lm_head")->parameter("weight").is_same(c->child("transformer")->child("wte")->parameter("weight")));

  // Other models too, any dtype (values convert to the model's dtype).
  MLPOptions o;
  o.sizes = {4, 3, 2};
  auto m1 = make_mlp(o), m2 = make_mlp(o);
  io::save_safetensors(dir + "/mlp.safetensors", m1->state_dict());
  load_weights(*m2, dir + "/mlp.safetensors");
  expect_same_state(*m1, *m2);
  fs::remove_all(dir);
}

TEST(Pretrained, HalfPrecisionAndPrefixedCheckpointWithoutLmHead) {
  const std::string dir = test::temp_dir("fp16");
  auto a = make_gpt(tiny());
  io::NamedTensors half;
  for (const auto& [n, t] : a->state_dict())
    if (n != "lm_head.weight") half.emplace_back(n, t.to(at::kHalf));
  io::save_safetensors(dir + "/model.safetensors", half);
  test::write_text(dir + "/config.json", kConfig);
  // transformers v5's dtype "auto": a config without a dtype, fp16 weights, an fp16 model;
  // asked for float32, the values convert as they load.
  for (const auto& [n, t] : from_pretrained(dir)->state_dict()) EXPECT_EQ(t.scalar_type(), at::kHalf) << n;
  auto b = from_pretrained(dir, /*deferred=*/false, "float32");
  for (const auto& [n, t] : b->state_dict()) EXPECT_EQ(t.scalar_type(), at::kFloat) << n;
  const auto x = a->state_dict(), y = b->state_dict();
  for (size_t i = 0; i < x.size(); ++i) EXPECT_TRUE(at::allclose(x[i].second, y[i].second, 1e-3, 1e-4)) << x[i].first;
  fs::remove_all(dir);
}

TEST(Pretrained, ClearErrors) {
  const std::string dir = test::temp_dir("errors");
  EXPECT_THAT(checkpoint_error([&] { from_pretrained(dir + "/nope"); }), ::testing::HasSubstr("not a folder"));
  EXPECT_THAT(checkpoint_error([&] { from_pretrained(dir); }), ::testing::HasSubstr("no config.json"));
  test::write_text(dir + "/config.json", R"({"model_type": "t5", "hidden_size": 16})");
  EXPECT_THAT(checkpoint_error([&] { from_pretrained(dir); }),
              ::testing::HasSubstr("model_type \"t5\" is not supported (supported: gpt2, llama, qwen2, qwen3, mistral, gemma3_text, bert, roberta, xlm-roberta, camembert, distilbert, albert, electra)"));
  test::write_text(dir + "/config.json", R"({"n_embd": 16})");
  EXPECT_THAT(checkpoint_error([&] { from_pretrained(dir); }), ::testing::HasSubstr("config.json has no model_type"));
  test::write_text(dir + "/config.json", R"({"model_type": "gpt2", "vocab_size": 40, "n_embd": 16, "n_layer": 1, "n_head": 2})");
  EXPECT_THAT(checkpoint_error([&] { from_pretrained(dir); }), ::testing::HasSubstr("integer \"n_ctx\""));
  test::write_text(dir + "/config.json", kConfig);
  EXPECT_THAT(checkpoint_error([&] { from_pretrained(dir); }), ::testing::HasSubstr("no model.safetensors"));
  test::write_text(dir + "/pytorch_model.bin", "x");
  EXPECT_THAT(checkpoint_error([&] { from_pretrained(dir); }), ::testing::HasSubstr("pytorch_model.bin"));

  // A checkpoint of another size: every mismatched key is listed, with both shapes.
  GPTConfig wide = tiny();
  wide.n_embd = 32;
  io::save_safetensors(dir + "/model.safetensors", make_gpt(wide)->state_dict());
  const std::string msg = checkpoint_error([&] { from_pretrained(dir); });
  EXPECT_THAT(msg, ::testing::HasSubstr(dir + ": shape mismatch for 17 key(s): transformer.wte.weight (file [40, 32], model [40, 16])"));
  EXPECT_THAT(msg, ::testing::HasSubstr("transformer.h.0.attn.c_attn.weight (file [32, 96], model [16, 48])"));

  // An untied head.
  io::NamedTensors untied = make_gpt(tiny())->state_dict();
  for (auto& [n, t] : untied)
    if (n == "lm_head.weight") t = t + 1;
  io::save_safetensors(dir + "/model.safetensors", untied);
  EXPECT_THAT(checkpoint_error([&] { from_pretrained(dir); }), ::testing::HasSubstr("lm_head.weight differs"));
  fs::remove_all(dir);
}

TEST(Pretrained, LoadWeightsReportsMissingAndUnexpected) {
  const std::string dir = test::temp_dir("load_weights");
  MLPOptions o;
  o.sizes = {4, 3, 2};
  auto m = make_mlp(o);
  io::NamedTensors partial = {{"layers.0.weight", at::ones({3, 4})}, {"layers.0.bias", at::ones({3})}, {"extra", at::ones({1})}};
  io::save_safetensors(dir + "/partial.safetensors", partial);
  const std::string msg = checkpoint_error([&] { load_weights(*m, dir + "/partial.safetensors"); });
  EXPECT_THAT(msg, ::testing::HasSubstr(dir + "/partial.safetensors: missing keys: layers.1.weight, layers.1.bias; unexpected keys: extra"));
  auto report = load_weights(*m, dir + "/partial.safetensors", /*strict=*/false);
  EXPECT_EQ(report.missing, (std::vector<std::string>{"layers.1.weight", "layers.1.bias"}));
  EXPECT_EQ(report.unexpected, (std::vector<std::string>{"extra"}));
  EXPECT_TRUE(m->state_dict()[0].second.eq(1).all().item<bool>());  // what matched was loaded
  io::save_safetensors(dir + "/bad.safetensors", {{"layers.0.weight", at::ones({4, 3})}, {"layers.1.bias", at::ones({3})}});
  EXPECT_THAT(checkpoint_error([&] { load_weights(*m, dir + "/bad.safetensors", false); }),
              ::testing::HasSubstr("shape mismatch for 2 key(s): layers.0.weight (file [4, 3], model [3, 4]), layers.1.bias (file [3], model [2])"));
  EXPECT_THAT(checkpoint_error([&] { load_weights(*m, dir + "/absent.safetensors"); }), ::testing::HasSubstr("absent.safetensors"));
  // GPT-2 without lm_head: the tied alias is not missing.
  auto g = make_gpt(tiny());
  io::NamedTensors no_head;
  for (const auto& [n, t] : g->state_dict())
    if (n != "lm_head.weight") no_head.emplace_back(n, t);
  io::save_safetensors(dir + "/nohead.safetensors", no_head);
  EXPECT_TRUE(load_weights(*make_gpt(tiny()), dir + "/nohead.safetensors").missing.empty());
  fs::remove_all(dir);
}

TEST(Pretrained, ShardedCheckpoint) {
  const std::string dir = test::temp_dir("sharded");
  auto a = make_gpt(tiny());
  io::NamedTensors one, two;
  nlohmann::json map = nlohmann::json::object();
  size_t i = 0;
  for (const auto& [n, t] : a->state_dict()) {
    if (n == "lm_head.weight") continue;
    (i++ % 2 ? two : one).emplace_back(n, t);
    map[n] = i % 2 ? "model-00001-of-00002.safetensors" : "model-00002-of-00002.safetensors";
  }
  io::save_safetensors(dir + "/model-00001-of-00002.safetensors", one);
  io::save_safetensors(dir + "/model-00002-of-00002.safetensors", two);
  test::write_text(dir + "/model.safetensors.index.json", nlohmann::json{{"metadata", nlohmann::json::object()}, {"weight_map", map}}.dump());
  test::write_text(dir + "/config.json", kConfig);
  expect_same_state(*a, *from_pretrained(dir));
  fs::remove_all(dir);
}

// config.json fields read as transformers 5 reads them (each expectation is what
// LlamaConfig/MistralConfig made of the same dict when the review compared logits).
TEST(LlamaConfigFromHf, RopeAndWindowFieldsAsTransformersReadsThem) {
  const auto base = [] {
    return nlohmann::json{{"model_type", "llama"}, {"vocab_size", 64}, {"hidden_size", 32}, {"intermediate_size", 64},
                          {"num_hidden_layers", 2}, {"num_attention_heads", 4}, {"max_position_embeddings", 128},
                          {"rope_parameters", {{"rope_type", "default"}, {"rope_theta", 10000.0}}}};
  };
  // rope_scaling beside v5's rope_parameters wins (rope_scaling or rope_parameters)
  auto j = base();
  j["rope_scaling"] = {{"rope_type", "linear"}, {"factor", 4.0}};
  auto c = llama_config_from_hf(j, "config.json");
  EXPECT_EQ(c.rope.type, "linear");
  EXPECT_EQ(c.rope.factor, 4.0);
  EXPECT_EQ(c.rope.theta, 10000.0);
  // llama3's original length: the model's when absent, a top-level value first
  j = base();
  j["rope_parameters"] = {{"rope_type", "llama3"}, {"rope_theta", 10000.0}, {"factor", 8.0}, {"low_freq_factor", 1.0}, {"high_freq_factor", 4.0}};
  EXPECT_EQ(llama_config_from_hf(j, "config.json").rope.original_max_position_embeddings, 128);
  j["original_max_position_embeddings"] = 32;
  EXPECT_EQ(llama_config_from_hf(j, "config.json").rope.original_max_position_embeddings, 32);
  // a scaled rope without its factor is refused (transformers: KeyError 'factor')
  j = base();
  j["rope_parameters"] = {{"rope_type", "linear"}};
  EXPECT_THAT([&] { llama_config_from_hf(j, "config.json"); }, ::testing::ThrowsMessage<CheckpointError>(::testing::HasSubstr("needs \"factor\"")));
  // Llama ignores layer_types and sliding_window; Mistral takes the window (not layer_types)
  j = base();
  j["layer_types"] = {"full_attention", "sliding_attention"};
  j["sliding_window"] = 3;
  c = llama_config_from_hf(j, "config.json");
  EXPECT_TRUE(c.sliding_layers.empty());
  EXPECT_EQ(c.sliding_window, 0);
  j["model_type"] = "mistral";
  c = llama_config_from_hf(j, "config.json");
  EXPECT_EQ(c.sliding_window, 3);
  EXPECT_TRUE(c.sliding_layers.empty());  // MistralAttention windows every layer
}

// The window fields as MistralConfig / Qwen2Config / Qwen3Config default them, and the keys each ignores.
TEST(LlamaConfigFromHf, WindowDefaultsAndIgnoredKeysPerModelType) {
  const auto base = [](const char* type) {
    return nlohmann::json{{"model_type", type}, {"vocab_size", 64}, {"hidden_size", 32}, {"intermediate_size", 64},
                          {"num_hidden_layers", 30}, {"num_attention_heads", 4}, {"max_position_embeddings", 128}};
  };
  // Mistral: 4096 when the key is absent, none when null; attention_bias/mlp_bias not read
  auto j = base("mistral");
  j["attention_bias"] = true;
  j["mlp_bias"] = true;
  auto c = llama_config_from_hf(j, "config.json");
  EXPECT_EQ(c.sliding_window, 4096);
  EXPECT_FALSE(c.qkv_bias || c.o_bias || c.mlp_bias);
  j["sliding_window"] = nullptr;
  EXPECT_EQ(llama_config_from_hf(j, "config.json").sliding_window, 0);
  // Qwen 2: no window without use_sliding_window, even where layer_types lists sliding layers
  j = base("qwen2");
  j["sliding_window"] = 8;
  j["layer_types"] = std::vector<std::string>(30, "sliding_attention");
  c = llama_config_from_hf(j, "config.json");
  EXPECT_EQ(c.sliding_window, 0);
  EXPECT_TRUE(c.sliding_layers.empty());
  // use_sliding_window: 4096 and layers 28.. when sliding_window / max_window_layers are absent
  j = base("qwen2");
  j["use_sliding_window"] = true;
  c = llama_config_from_hf(j, "config.json");
  EXPECT_EQ(c.sliding_window, 4096);
  ASSERT_EQ(c.sliding_layers.size(), 30u);
  EXPECT_FALSE(c.sliding_layers[27]);
  EXPECT_TRUE(c.sliding_layers[28]);
  // Qwen 3: Qwen 2's window keys; attention_bias on q/k/v/o (none by default), head_dim 128
  // when absent (Qwen3Config's default, not hidden_size / heads), q_norm and k_norm always
  j = base("qwen3");
  j["use_sliding_window"] = true;
  j["max_window_layers"] = 10;
  c = llama_config_from_hf(j, "config.json");
  EXPECT_EQ(c.sliding_window, 4096);
  ASSERT_EQ(c.sliding_layers.size(), 30u);
  EXPECT_FALSE(c.sliding_layers[9]);
  EXPECT_TRUE(c.sliding_layers[10]);
  EXPECT_FALSE(c.qkv_bias || c.o_bias || c.mlp_bias);
  EXPECT_EQ(c.head_dim, 128);
  EXPECT_TRUE(c.qk_norm);
  j["attention_bias"] = true;
  j["mlp_bias"] = true;  // Qwen3MLP has no biases, whatever this says
  j["head_dim"] = 16;
  c = llama_config_from_hf(j, "config.json");
  EXPECT_TRUE(c.qkv_bias && c.o_bias && !c.mlp_bias);
  EXPECT_EQ(c.head_dim, 16);
  const nlohmann::json back = nlohmann::json::parse(llama_config_json(c));
  EXPECT_EQ(back["attention_bias"], true);
  EXPECT_FALSE(back.contains("mlp_bias"));
  EXPECT_EQ(back["use_sliding_window"], true);
  EXPECT_EQ(back["architectures"], nlohmann::json{"Qwen3ForCausalLM"});
  EXPECT_FALSE(llama_config_from_hf(base("qwen2"), "config.json").qk_norm);
  // Gemma 3: Gemma3TextConfig's defaults where keys are absent, both ropes, its refusals
  j = base("gemma3_text");
  c = llama_config_from_hf(j, "config.json");
  EXPECT_TRUE(c.gemma && c.qk_norm && c.tie_word_embeddings);
  EXPECT_EQ(c.head_dim, 256);
  EXPECT_EQ(c.query_pre_attn_scalar, 256);
  EXPECT_EQ(c.sliding_window, 4096);
  ASSERT_EQ(c.sliding_layers.size(), 30u);
  EXPECT_TRUE(c.sliding_layers[4]);
  EXPECT_FALSE(c.sliding_layers[5]);  // every 6th layer attends to all
  EXPECT_EQ((std::vector<std::vector<int64_t>>{c.pad_token_id, c.eos_token_id, c.bos_token_id}), (std::vector<std::vector<int64_t>>{{0}, {1}, {2}}));
  EXPECT_EQ(c.rope.theta, 1e6);
  EXPECT_EQ(c.local_rope.theta, 1e4);
  j["rope_scaling"] = {{"rope_type", "linear"}, {"factor", 8.0}};  // v4: the full layers' scaling
  j["rope_local_base_freq"] = 5e3;
  j["sliding_window_pattern"] = 2;
  j["pad_token_id"] = nullptr;
  c = llama_config_from_hf(j, "config.json");
  EXPECT_EQ(c.rope.type, "linear");
  EXPECT_EQ(c.rope.factor, 8.0);
  EXPECT_EQ(c.local_rope.type, "default");
  EXPECT_EQ(c.local_rope.theta, 5e3);
  EXPECT_TRUE(c.sliding_layers[0] && !c.sliding_layers[1]);
  EXPECT_TRUE(c.pad_token_id.empty());
  nlohmann::json gemma_back = nlohmann::json::parse(llama_config_json(c));
  EXPECT_EQ(gemma_back["architectures"], nlohmann::json{"Gemma3ForCausalLM"});
  EXPECT_EQ(gemma_back["hidden_activation"], "gelu_pytorch_tanh");
  EXPECT_FALSE(gemma_back.contains("hidden_act"));
  EXPECT_EQ(gemma_back["rope_parameters"]["full_attention"]["rope_type"], "linear");
  EXPECT_EQ(gemma_back["rope_parameters"]["sliding_attention"]["rope_theta"], 5e3);
  EXPECT_EQ(gemma_back["query_pre_attn_scalar"], 256);
  const LlamaConfig again = llama_config_from_hf(gemma_back, "config.json");  // v5's nested rope_parameters read back
  EXPECT_EQ(again.rope.factor, 8.0);
  EXPECT_EQ(again.local_rope.theta, 5e3);
  EXPECT_EQ(again.sliding_layers, c.sliding_layers);
  // rope_scaling beside v5's per-type rope_parameters goes over the full layers' (Gemma3TextConfig's update)
  nlohmann::json both = gemma_back;
  both["rope_parameters"]["full_attention"] = {{"rope_type", "default"}, {"rope_theta", 1e6}};
  both["rope_scaling"] = {{"rope_type", "linear"}, {"factor", 4.0}};
  EXPECT_EQ(llama_config_from_hf(both, "config.json").rope.factor, 4.0);
  EXPECT_EQ(llama_config_from_hf(both, "config.json").rope.theta, 1e6);
  // Every layer full: no window is used and the local rope neither, but the window stays, and
  // layer_types is written (transformers would otherwise derive sliding layers again)
  nlohmann::json full = base("gemma3_text");
  full["layer_types"] = std::vector<std::string>(30, "full_attention");
  c = llama_config_from_hf(full, "config.json");
  EXPECT_EQ(c.sliding_window, 4096);
  EXPECT_EQ(c.sliding_layers, std::vector<bool>(30, false));
  gemma_back = nlohmann::json::parse(llama_config_json(c));
  EXPECT_EQ(gemma_back["layer_types"], full["layer_types"]);
  EXPECT_EQ(gemma_back["sliding_window"], 4096);
  // A Gemma 3 without a window does not run in transformers: refused
  for (const nlohmann::json& window : {nlohmann::json(nullptr), nlohmann::json(0)}) {
    full["sliding_window"] = window;
    EXPECT_THAT(checkpoint_error([&] { llama_config_from_hf(full, "config.json"); }), ::testing::HasSubstr("\"sliding_window\" must be an integer > 0"));
  }
  for (const auto& [key, value] : std::vector<std::pair<std::string, nlohmann::json>>{
           {"final_logit_softcapping", 30.0}, {"attn_logit_softcapping", 50.0}, {"hidden_activation", "gelu"}, {"use_bidirectional_attention", true}}) {
    nlohmann::json bad = base("gemma3_text");
    bad[key] = value;
    EXPECT_THAT(checkpoint_error([&] { llama_config_from_hf(bad, "config.json"); }), ::testing::HasSubstr(key)) << key;
  }
  // swish is silu (transformers' ACT2FN)
  j = base("llama");
  j["hidden_act"] = "swish";
  EXPECT_NO_THROW(llama_config_from_hf(j, "config.json"));
  j["hidden_act"] = "gelu";
  EXPECT_THROW(llama_config_from_hf(j, "config.json"), CheckpointError);
}

TEST(Pretrained, QuantizedFolderRefusedByName) {
  const std::string dir = test::temp_dir("quantized");
  auto config = nlohmann::json::parse(kConfig);
  config["quantization_config"] = {{"quant_method", "bitsandbytes"}, {"load_in_4bit", true}};
  test::write_text(dir + "/config.json", config.dump());
  io::save_safetensors(dir + "/model.safetensors", make_gpt(tiny())->state_dict());
  EXPECT_THAT([&] { from_pretrained(dir); },
              ::testing::ThrowsMessage<CheckpointError>(::testing::HasSubstr("quantized checkpoints are not supported (quantization_config, quant_method \"bitsandbytes\")")));
  fs::remove_all(dir);
}

// GPT2Config's three dropouts are read apart: attention dropout alone changes a training
// forward, and the config written back keeps each.
TEST(Pretrained, Gpt2DropoutsReadApart) {
  const std::string dir = test::temp_dir("gpt2_dropouts");
  auto config = nlohmann::json::parse(kConfig);
  config["resid_pdrop"] = 0.0;
  config["embd_pdrop"] = 0.0;
  config["attn_pdrop"] = 0.5;
  test::write_text(dir + "/config.json", config.dump());
  io::save_safetensors(dir + "/model.safetensors", make_gpt(tiny())->state_dict());
  auto m = from_pretrained(dir);
  const at::Tensor ids = at::randint(0, 40, {2, 8}, at::kLong);
  const at::Tensor eval = m->forward_batch({{"input_ids", ids}}).at("logits");
  m->train();
  EXPECT_FALSE(at::allclose(m->forward_batch({{"input_ids", ids}}).at("logits"), eval));
  const auto written = nlohmann::json::parse(m->hf_config_json());
  EXPECT_EQ(written["attn_pdrop"], 0.5);
  EXPECT_EQ(written["resid_pdrop"], 0.0);
  EXPECT_EQ(written["embd_pdrop"], 0.0);
  config["attn_pdrop"] = 0.0;  // all three 0: training is eval
  test::write_text(dir + "/config.json", config.dump());
  m = from_pretrained(dir);
  m->train();
  EXPECT_TRUE(at::allclose(m->forward_batch({{"input_ids", ids}}).at("logits"), eval));
  fs::remove_all(dir);
}

// *ForSequenceClassification configs: their architectures make a classifier (id2label's names,
// problem_type kept), written back under the type's own class name; a causal LM's is not one.
TEST(LlamaConfigFromHf, SequenceClassifierConfigRoundTrips) {
  for (const std::string type : {"llama", "qwen2", "qwen3", "mistral", "gemma3_text"}) {
    nlohmann::json j{{"model_type", type}, {"vocab_size", 64}, {"hidden_size", 32}, {"intermediate_size", 64}, {"num_hidden_layers", 2},
                     {"num_attention_heads", 4}, {"pad_token_id", 0}};
    EXPECT_EQ(llama_config_from_hf(j, "config.json").num_labels, 0) << type;
    j["id2label"] = {{"1", "good"}, {"0", "bad"}};
    EXPECT_EQ(llama_config_from_hf(j, "config.json").num_labels, 0) << type;  // labels alone do not make a classifier
    j["architectures"] = {llama_architecture(type, /*classifier=*/true)};
    j["problem_type"] = "single_label_classification";
    const LlamaConfig c = llama_config_from_hf(j, "config.json");
    EXPECT_EQ(c.num_labels, 2);
    EXPECT_EQ(c.labels, (std::vector<std::string>{"bad", "good"}));
    const nlohmann::json back = nlohmann::json::parse(llama_config_json(c));
    EXPECT_EQ(back["architectures"], j["architectures"]);
    EXPECT_EQ(back["id2label"], (nlohmann::json{{"0", "bad"}, {"1", "good"}}));
    EXPECT_EQ(back["label2id"], (nlohmann::json{{"bad", 0}, {"good", 1}}));
    EXPECT_EQ(back["problem_type"], "single_label_classification");
    ModulePtr m = make_llama(c);
    EXPECT_EQ(m->type_name(), j["architectures"][0].get<std::string>());
    EXPECT_FALSE(m->can_generate());
    EXPECT_FALSE(m->shifts_labels());
    bool score = false, lm_head = false;
    for (const auto& [name, p] : m->named_parameters()) score |= name == "score.weight", lm_head |= name == "lm_head.weight";
    EXPECT_TRUE(score && !lm_head);
  }
  nlohmann::json j{{"model_type", "llama"}, {"vocab_size", 64}, {"hidden_size", 32}, {"intermediate_size", 64}, {"num_hidden_layers", 2},
                   {"num_attention_heads", 4}, {"architectures", {"LlamaForSequenceClassification"}}, {"pad_token_id", {0, 1}}};
  EXPECT_THAT(checkpoint_error([&] { llama_config_from_hf(j, "config.json"); }), ::testing::HasSubstr("takes one pad_token_id"));
}

// GPT2ForSequenceClassification: the config it writes reads back as the same classifier.
TEST(GptConfigFromHf, SequenceClassifierConfigRoundTrips) {
  GPTConfig c = tiny();
  c.num_labels = 2, c.labels = {"bad", "good"}, c.pad_token_id = {0};
  ModulePtr m = make_gpt(c);
  EXPECT_EQ(m->type_name(), "GPT2ForSequenceClassification");
  EXPECT_FALSE(m->can_generate());
  const nlohmann::json j = nlohmann::json::parse(m->hf_config_json());
  EXPECT_EQ(j["architectures"], nlohmann::json::array({"GPT2ForSequenceClassification"}));
  const GPTConfig back = gpt_config(j, "config.json");
  EXPECT_EQ(back.num_labels, 2);
  EXPECT_EQ(back.labels, c.labels);
  EXPECT_EQ(back.pad_token_id, c.pad_token_id);
  bool score = false, lm_head = false;
  for (const auto& [name, t] : m->state_dict()) score |= name == "score.weight", lm_head |= name == "lm_head.weight";
  EXPECT_TRUE(score && !lm_head);
  EXPECT_EQ(gpt_config(nlohmann::json::parse(kConfig), "config.json").num_labels, 0);  // GPT2LMHeadModel's
}
