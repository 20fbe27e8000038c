// A model's parameters through their life (parameter_store.h): built as placeholders, loaded
// whole by materialize(), into a flat buffer by place() or in pieces by ParameterStore::read
// (what ZeRO-3 ranks do; tests/integration/test_distributed.py checks the sharded reading
// itself), and a unit's memory released and refilled under its views.
#include <gtest/gtest.h>

#include "runtime/core/errors.h"
#include "runtime/io/safetensors.h"
#include "runtime/models/builtin.h"
#include "runtime/models/parameter_store.h"
#include "runtime/models/generation.h"
#include "runtime/models/layers.h"
#include "runtime/models/lora.h"
#include "runtime/models/pretrained.h"
#include "runtime/optim/flat_params.h"
#include "tests/models/model_test_util.h"

using namespace runner;
using namespace runner::models;

namespace {

LlamaConfig tiny_llama(bool tied) {
  LlamaConfig c;
  c.vocab_size = 50, c.hidden_size = 16, c.intermediate_size = 32, c.num_hidden_layers = 2, c.num_attention_heads = 4;
  c.num_key_value_heads = 2, c.max_position_embeddings = 32, c.tie_word_embeddings = tied;
  return c;
}

// A Hugging Face folder (config.json + model.safetensors) of a random tiny Llama, and the
// model it was saved from: the reference every load is compared with.
struct Folder {
  std::string dir;
  ModulePtr source;
};
Folder llama_folder(const std::string& tag, bool tied) {
  const std::string dir = test::temp_dir(tag);
  at::manual_seed(3);
  auto m = make_llama(tiny_llama(tied));
  m->eval();
  io::save_safetensors(dir + "/model.safetensors", m->state_dict(), {{"format", "pt"}});
  test::write_text(dir + "/config.json", m->hf_config_json());
  return {dir, m};
}

void expect_same_state(const Module& a, const Module& b) {
  const auto x = a.state_dict(), y = b.state_dict();
  ASSERT_EQ(x.size(), y.size());
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(x[i].first, y[i].first);
    EXPECT_GE(x[i].second.storage().nbytes(), x[i].second.nbytes()) << x[i].first << " is still a placeholder";
    EXPECT_TRUE(x[i].second.to(y[i].second.scalar_type()).equal(y[i].second)) << x[i].first;
  }
}

}  // namespace

bool is_placeholder(const at::Tensor& p) { return p.numel() > 1 && p.storage().nbytes() <= static_cast<size_t>(p.element_size()); }

TEST(ParameterStore, MetaInitBuildsLayersWithoutMemory) {
  {
    MetaInit meta;
    EXPECT_TRUE(param_options().device().is_meta());
    Linear l(1000, 1000);
    EXPECT_TRUE(is_placeholder(l.weight));
    EXPECT_TRUE(is_placeholder(l.bias));
    EXPECT_FALSE(l.weight.is_meta());  // a CPU tensor: set_data takes it to its values
    EXPECT_TRUE(l.weight.requires_grad());
    // a path that forgot to load it computes NaN, never plausible numbers
    EXPECT_TRUE(l.forward(at::ones({2, 1000})).isnan().all().item<bool>());
    auto m = make_llama(tiny_llama(true));
    for (const auto& [name, p] : m->named_parameters()) EXPECT_TRUE(is_placeholder(p)) << name;
  }
  EXPECT_FALSE(param_options().device().is_meta());
  Linear l(4, 3);
  EXPECT_FALSE(is_placeholder(l.weight));
}

TEST(ParameterStore, DeferredAndEagerLoadsGiveTheSavedModelAndReadEachValueOnce) {
  for (const bool tied : {true, false}) {
    const auto [dir, source] = llama_folder(tied ? "deferred_tied" : "deferred_untied", tied);
    const ModulePtr eager = from_pretrained(dir);
    EXPECT_FALSE(is_deferred(*eager));
    expect_same_state(*eager, *source);
    auto lazy = from_pretrained(dir, /*deferred=*/true);
    ASSERT_TRUE(is_deferred(*lazy));
    const auto weights = lazy->parameter_store();
    EXPECT_EQ(weights->values_read(), 0);
    EXPECT_EQ(weights->values_total(), lazy->num_parameters());
    const at::Tensor embed = lazy->named_parameters().front().second;  // held across the load
    EXPECT_TRUE(weights->in_file(embed));
    EXPECT_TRUE(is_placeholder(embed));
    materialize(*lazy);
    EXPECT_FALSE(is_deferred(*lazy));
    EXPECT_EQ(weights->state(embed), ParameterStore::State::kWhole);
    EXPECT_FALSE(is_placeholder(embed));  // the same tensor now holds the values
    EXPECT_EQ(weights->values_read(), lazy->num_parameters());  // the tied head is read once
    expect_same_state(*lazy, *source);
  }
}

TEST(ParameterStore, TiedHeadStaysTiedAndTrains) {
  const std::string dir = llama_folder("deferred_train", true).dir;
  auto model = from_pretrained(dir, /*deferred=*/true);
  materialize(*model);
  const auto state = model->state_dict();
  const at::Tensor embed = test::find_named(state, "model.embed_tokens.weight"), head = test::find_named(state, "lm_head.weight");
  EXPECT_EQ(embed.unsafeGetTensorImpl(), head.unsafeGetTensorImpl());
  model->train();
  const at::Tensor ids = at::randint(0, 50, {2, 6});
  const TensorMap out = model->forward_batch({{"input_ids", ids}, {"labels", ids}});
  out.at("loss").backward();
  for (const auto& [name, p] : model->named_parameters()) {
    ASSERT_TRUE(p.grad().defined()) << name;
    EXPECT_TRUE(p.grad().isfinite().all().item<bool>()) << name;
  }
}

TEST(ParameterStore, DtypeAndDeviceChosenBeforeLoadingApply) {
  const auto [dir, source] = llama_folder("deferred_dtype", false);
  auto lazy = from_pretrained(dir, /*deferred=*/true);
  lazy->to(at::kDouble);
  lazy->to(at::Device(at::kCPU));
  const at::Tensor first = lazy->named_parameters().front().second;
  EXPECT_TRUE(is_placeholder(first));  // converted without loading
  EXPECT_EQ(first.scalar_type(), at::kDouble);
  EXPECT_EQ(lazy->parameter_store()->device(), at::Device(at::kCPU));
  materialize(*lazy);
  for (const auto& [name, p] : lazy->named_parameters()) EXPECT_EQ(p.scalar_type(), at::kDouble) << name;
  source->to(at::kDouble);
  expect_same_state(*lazy, *source);
}

TEST(ParameterStore, ReadGivesAnyRangeOfAParameter) {
  const auto [dir, source] = llama_folder("deferred_read", false);
  auto lazy = from_pretrained(dir, /*deferred=*/true);
  const auto weights = lazy->parameter_store();
  const auto lazy_params = lazy->named_parameters(), source_params = source->named_parameters();
  for (size_t i = 0; i < lazy_params.size(); ++i) {
    const at::Tensor& p = lazy_params[i].second;
    ASSERT_TRUE(weights->covers(p));
    const int64_t n = p.numel(), b = n / 3, count = n - b - n / 5;
    EXPECT_TRUE(weights->read(p, b, count).equal(source_params[i].second.reshape(-1).narrow(0, b, count))) << lazy_params[i].first;
  }
  EXPECT_THROW(weights->read(lazy_params[0].second, 0, lazy_params[0].second.numel() + 1), CheckpointError);
}

TEST(ParameterStore, LoraAdaptsABaseStillInItsFiles) {
  const auto [dir, source] = llama_folder("deferred_lora", false);
  auto lazy = from_pretrained(dir, /*deferred=*/true);
  LoraConfig c;
  c.r = 2, c.alpha = 4, c.init_lora_weights = false;
  apply_lora(*lazy, c);
  for (const auto& [name, p] : lazy->named_parameters()) {
    const bool adapter = name.find("lora_") != std::string::npos;
    EXPECT_EQ(lazy->parameter_store()->in_file(p), !adapter) << name;
    EXPECT_EQ(is_placeholder(p), !adapter) << name;
    EXPECT_EQ(p.requires_grad(), adapter) << name;
  }
  const at::Tensor a = test::find_named(lazy->state_dict(), "model.layers.0.self_attn.q_proj.lora_A.weight").clone();
  materialize(*lazy);
  EXPECT_TRUE(test::find_named(lazy->state_dict(), "model.layers.0.self_attn.q_proj.lora_A.weight").equal(a));
  for (const auto& [name, t] : source->state_dict()) EXPECT_TRUE(test::find_named(lazy->state_dict(), name).equal(t)) << name;
}

TEST(ParameterStore, ShapeMismatchesAreFoundWhenTheFolderIsOpened) {
  const std::string dir = llama_folder("deferred_errors", false).dir;
  auto other = make_llama([] {
    LlamaConfig c = tiny_llama(false);
    c.hidden_size = 8, c.num_attention_heads = 2, c.num_key_value_heads = 1;
    return c;
  }());
  io::save_safetensors(dir + "/model.safetensors", other->state_dict(), {{"format", "pt"}});
  try {
    from_pretrained(dir, /*deferred=*/true);
    FAIL() << "no error";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("shape mismatch"), std::string::npos) << e.what();
  }
}

TEST(ParameterStore, ForwardGenerateAndLoadStateDictLoadTheFilesFirst) {
  const auto [dir, source] = llama_folder("deferred_use", false);
  const at::Tensor ids = at::randint(0, 50, {2, 5});
  {
    auto lazy = from_pretrained(dir, /*deferred=*/true);
    EXPECT_TRUE(lazy->forward_batch({{"input_ids", ids}}).at("logits").equal(source->forward_batch({{"input_ids", ids}}).at("logits")));
    EXPECT_FALSE(is_deferred(*lazy));
  }
  {
    auto lazy = from_pretrained(dir, /*deferred=*/true);
    GenerationConfig g;
    g.max_new_tokens = 4;
    EXPECT_TRUE(generate(*lazy, ids, at::Tensor(), g).equal(generate(*source, ids, at::Tensor(), g)));
  }
  {
    auto lazy = from_pretrained(dir, /*deferred=*/true);
    const at::Tensor twos = at::full({16}, 2.0);
    lazy->load_state_dict({{"model.norm.weight", twos}}, /*strict=*/false);
    EXPECT_FALSE(is_deferred(*lazy));
    for (const auto& [name, t] : source->state_dict())
      EXPECT_TRUE(test::find_named(lazy->state_dict(), name).equal(name == "model.norm.weight" ? twos : t)) << name;
  }
}

TEST(ParameterStore, FlatBufferTakesTheValuesStraightFromTheFiles) {
  const auto [dir, source] = llama_folder("deferred_flat", false);
  auto lazy = from_pretrained(dir, /*deferred=*/true);
  const StoreList records = stores_in(*lazy);
  const NamedTensorList params = lazy->named_parameters();
  optim::FlatParams flat(params, std::vector<int>(params.size(), 0), 1, /*grad_buffer=*/true, /*data_buffer=*/true,
                         [&](const std::string&, const at::Tensor& p, const at::Tensor& slot) { place(records, p, slot); },
                         at::Device(at::kCPU));
  const auto* begin = static_cast<const char*>(flat.data().data_ptr());
  const auto source_params = source->named_parameters();
  for (size_t i = 0; i < params.size(); ++i) {
    const at::Tensor& p = params[i].second;
    ASSERT_EQ(records.front()->state(p), ParameterStore::State::kInFlatBuffer) << params[i].first;
    const auto* at = static_cast<const char*>(p.data_ptr());
    EXPECT_TRUE(at >= begin && at < begin + flat.data().nbytes()) << params[i].first << " is not a view of the flat buffer";
    EXPECT_TRUE(p.equal(source_params[i].second)) << params[i].first;
  }
  EXPECT_EQ(records.front()->values_read(), lazy->num_parameters());  // each value read once, into its slot
}

TEST(ParameterStore, ReleasedMemoryComesBackUnderEveryView) {
  // ZeRO-3's unit buffers: parameters and tensors autograd saved are views of the buffer; its
  // memory goes between uses and comes back in the same storage, so every view sees the
  // values written after the refill.
  at::Tensor buffer = at::arange(12, at::kFloat);
  at::Tensor param = buffer.narrow(0, 4, 6).view({2, 3});
  at::Tensor saved = param.t();  // what autograd keeps of a weight in a matmul
  ParameterStore::release_memory(buffer);
  EXPECT_EQ(buffer.storage().nbytes(), 0u);
  EXPECT_EQ(param.storage().nbytes(), 0u);  // the same storage: no memory kept by the views
  ParameterStore::refill_memory(buffer);
  EXPECT_EQ(buffer.storage().nbytes(), 12 * sizeof(float));
  at::from_blob(buffer.storage().mutable_data(), {12}, at::kFloat).copy_(at::arange(12, at::kFloat) * 2);
  EXPECT_TRUE(param.equal((at::arange(4, 10, at::kFloat) * 2).view({2, 3})));
  EXPECT_TRUE(saved.equal(param.t()));
  const void* before = buffer.storage().data();
  ParameterStore::refill_memory(buffer);  // already there: nothing happens
  EXPECT_EQ(buffer.storage().data(), before);
}

TEST(ParameterStore, PlacingAModelWithoutFilesKeepsEveryHolder) {
  // Parameters a recipe built (no store): placed into a flat buffer, the layer's member, the
  // tied head and the module's list all see the slot.
  auto model = make_llama(tiny_llama(true));
  const auto before = model->state_dict();
  std::vector<std::pair<std::string, at::Tensor>> copies;
  for (const auto& [name, t] : before) copies.emplace_back(name, t.clone());
  const NamedTensorList params = model->named_parameters();
  optim::FlatParams flat(params, std::vector<int>(params.size(), 0), 1, true, true,
                         [&](const std::string&, const at::Tensor& p, const at::Tensor& slot) { place(stores_in(*model), p, slot); });
  const auto* begin = static_cast<const char*>(flat.data().data_ptr());
  for (const auto& [name, t] : model->state_dict()) {
    const auto* at = static_cast<const char*>(t.data_ptr());
    EXPECT_TRUE(at >= begin && at < begin + flat.data().nbytes()) << name;
    EXPECT_TRUE(t.equal(test::find_named(copies, name))) << name;
  }
}
