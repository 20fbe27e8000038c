#include <c10/core/GradMode.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/core/errors.h"
#include "runtime/models/builtin.h"

using namespace runner;
using namespace runner::models;

namespace {

GPTConfig small(int64_t n_layer = 2) {
  GPTConfig c;
  c.vocab_size = 50;
  c.block_size = 16;
  c.n_layer = n_layer;
  c.n_head = 4;
  c.n_embd = 32;
  return c;
}

std::vector<std::string> keys(const NamedTensorList& l) {
  std::vector<std::string> out;
  for (const auto& [n, t] : l) out.push_back(n);
  return out;
}

}  // namespace

TEST(GPT, ShapesAndOutputs) {
  auto m = make_gpt(small());
  EXPECT_TRUE(m->takes_batch());
  EXPECT_TRUE(m->shifts_labels());
  EXPECT_EQ(m->input_names(), (std::vector<std::string>{"input_ids", "position_ids", "labels"}));
  EXPECT_TRUE(m->attends_across_packed_sequences());  // as HF GPT-2: packing is refused for it
  at::Tensor ids = at::randint(0, 50, {3, 10}, at::kLong);
  TensorMap out = m->forward_batch({{"input_ids", ids}});
  EXPECT_EQ(out.at("logits").sizes(), at::IntArrayRef({3, 10, 50}));
  EXPECT_EQ(out.count("loss"), 0u);
  out = m->forward_batch({{"input_ids", ids.to(at::kInt)}, {"labels", ids}});
  EXPECT_EQ(out.at("loss").dim(), 0);
  EXPECT_NEAR(out.at("loss").item<double>(), std::log(50.0), 0.3);  // near-uniform at init
}

TEST(GPT, StateDictHasExactlyHuggingFaceNamesAndLayouts) {
  auto m = make_gpt(small(2));
  std::vector<std::string> want = {"transformer.wte.weight", "transformer.wpe.weight"};
  for (int i = 0; i < 2; ++i) {
    const std::string h = "transformer.h." + std::to_string(i) + ".";
    for (const char* s : {"ln_1.weight", "ln_1.bias", "attn.c_attn.weight", "attn.c_attn.bias", "attn.c_proj.weight",
                          "attn.c_proj.bias", "ln_2.weight", "ln_2.bias", "mlp.c_fc.weight", "mlp.c_fc.bias", "mlp.c_proj.weight",
                          "mlp.c_proj.bias"})
      want.push_back(h + s);
  }
  want.insert(want.end(), {"transformer.ln_f.weight", "transformer.ln_f.bias", "lm_head.weight"});
  EXPECT_EQ(keys(m->state_dict()), want);
  std::map<std::string, at::Tensor> sd;
  for (const auto& [n, t] : m->state_dict()) sd[n] = t;
  EXPECT_EQ(sd["transformer.wte.weight"].sizes(), at::IntArrayRef({50, 32}));
  EXPECT_EQ(sd["transformer.wpe.weight"].sizes(), at::IntArrayRef({16, 32}));
  EXPECT_EQ(sd["transformer.h.0.attn.c_attn.weight"].sizes(), at::IntArrayRef({32, 96}));  // Conv1D: (in, out)
  EXPECT_EQ(sd["transformer.h.0.attn.c_attn.bias"].sizes(), at::IntArrayRef({96}));
  EXPECT_EQ(sd["transformer.h.0.attn.c_proj.weight"].sizes(), at::IntArrayRef({32, 32}));
  EXPECT_EQ(sd["transformer.h.1.mlp.c_fc.weight"].sizes(), at::IntArrayRef({32, 128}));
  EXPECT_EQ(sd["transformer.h.1.mlp.c_proj.weight"].sizes(), at::IntArrayRef({128, 32}));
  EXPECT_EQ(sd["lm_head.weight"].sizes(), at::IntArrayRef({50, 32}));
  // Causal attention needs no mask tensor (SDPA's is_causal), so there is no buffer at all.
  EXPECT_TRUE(m->named_buffers().empty());
}

TEST(GPT, WithoutBiasHasNoBiasKeys) {
  GPTConfig c = small(1);
  c.bias = false;
  auto m = make_gpt(c);
  for (const auto& name : keys(m->state_dict())) EXPECT_EQ(name.find("bias"), std::string::npos) << name;
  EXPECT_EQ(m->state_dict().size(), 2u + 6u + 1u + 1u);
  m->forward_batch({{"input_ids", at::randint(0, 50, {1, 4}, at::kLong)}});
}

TEST(GPT, LmHeadIsTiedToTokenEmbedding) {
  auto m = make_gpt(small());
  const auto params = keys(m->named_parameters());
  EXPECT_EQ(std::count(params.begin(), params.end(), "lm_head.weight"), 0);
  EXPECT_EQ(params.front(), "transformer.wte.weight");
  EXPECT_EQ(params.size(), 2u + 12u * 2u + 2u);
  at::Tensor wte = m->child("transformer")->child("wte")->parameter("weight");
  at::Tensor head = m->child("lm_head")->parameter("weight");
  EXPECT_TRUE(wte.is_same(head));
  // A gradient step on the shared tensor moves both names.
  {
    c10::NoGradGuard g;
    wte.add_(1.0);
  }
  EXPECT_TRUE(head.equal(wte));
  // Trainable parameter count: embeddings once.
  const int64_t c = 32, v = 50, block = 16;
  const int64_t per_block = 2 * c + (c * 3 * c + 3 * c) + (c * c + c) + 2 * c + (c * 4 * c + 4 * c) + (4 * c * c + c);
  EXPECT_EQ(m->num_parameters(), v * c + block * c + 2 * per_block + 2 * c);
}

TEST(GPT, IsCausal) {
  auto m = make_gpt(small());
  m->eval();
  at::Tensor ids = at::randint(0, 50, {2, 12}, at::kLong);
  at::Tensor before = m->forward_batch({{"input_ids", ids}}).at("logits");
  for (int64_t t : {0, 5, 10}) {
    at::Tensor changed = ids.clone();
    changed.select(1, t + 1).add_(1).remainder_(50);
    at::Tensor after = m->forward_batch({{"input_ids", changed}}).at("logits");
    EXPECT_TRUE(at::allclose(before.narrow(1, 0, t + 1), after.narrow(1, 0, t + 1), 0, 1e-6)) << "t = " << t;
    EXPECT_FALSE(at::allclose(before.narrow(1, t + 1, 1), after.narrow(1, t + 1, 1), 0, 1e-6)) << "t = " << t;
  }
}

TEST(GPT, InitialisationFollowsGPT2) {
  at::manual_seed(0);
  GPTConfig c;
  c.vocab_size = 1000;
  c.block_size = 256;
  c.n_layer = 4;
  c.n_head = 4;
  c.n_embd = 256;
  auto m = make_gpt(c);
  const double proj = 0.02 / std::sqrt(2.0 * 4);
  for (const auto& [name, p] : m->named_parameters()) {
    const double std = p.std().item<double>(), mean = p.mean().item<double>();
    auto ends = [&](const std::string& s) { return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0; };
    if (ends("c_proj.weight")) {
      EXPECT_NEAR(std, proj, 0.05 * proj) << name;
    } else if (ends("ln_1.weight") || ends("ln_2.weight") || ends("ln_f.weight")) {
      EXPECT_TRUE(p.eq(1).all().item<bool>()) << name;
    } else if (ends(".bias")) {
      EXPECT_TRUE(p.eq(0).all().item<bool>()) << name;
    } else {
      EXPECT_NEAR(std, 0.02, 0.001) << name;  // wte, wpe, c_attn, c_fc
      EXPECT_NEAR(mean, 0.0, 0.001) << name;
    }
  }
}

TEST(GPT, LossShiftsLabelsAndIgnoresMinus100) {
  auto m = make_gpt(small());
  at::Tensor ids = at::randint(0, 50, {2, 8}, at::kLong);
  at::Tensor labels = ids.clone();
  labels[0].narrow(0, 0, 3).fill_(-100);
  labels[1].narrow(0, 6, 2).fill_(-100);
  TensorMap out = m->forward_batch({{"input_ids", ids}, {"labels", labels}});
  // By hand: position t predicts labels[t + 1], averaged over the labels that are not -100.
  at::Tensor logp = at::log_softmax(out.at("logits"), -1);
  double sum = 0;
  int n = 0;
  for (int b = 0; b < 2; ++b)
    for (int t = 0; t + 1 < 8; ++t) {
      const int64_t y = labels[b][t + 1].item<int64_t>();
      if (y == -100) continue;
      sum -= logp[b][t][y].item<double>();
      ++n;
    }
  EXPECT_EQ(n, 14 - 2 - 2);  // labels[0][0] is never a target anyway
  EXPECT_NEAR(out.at("loss").item<double>(), sum / n, 1e-5);
  at::Tensor other = labels.clone();
  other.select(1, 0).fill_(7);  // position 0 is never a target
  EXPECT_NEAR(m->forward_batch({{"input_ids", ids}, {"labels", other}}).at("loss").item<double>(), sum / n, 1e-6);
}

TEST(GPT, FloatingPointOpsLikeHuggingFace) {
  auto m = make_gpt(small());
  at::Tensor ids = at::zeros({4, 10}, at::kLong);
  const int64_t embeddings = 50 * 32 + 16 * 32;
  EXPECT_DOUBLE_EQ(m->floating_point_ops({{"input_ids", ids}}), 6.0 * (m->num_parameters() - embeddings) * 40);
  EXPECT_EQ(m->floating_point_ops({{"x", ids}}), 0.0);
}

TEST(GPT, RejectsBadInputsClearly) {
  auto m = make_gpt(small());
  EXPECT_THROW(m->forward_batch({{"input_ids", at::zeros({1, 17}, at::kLong)}}), RecipeError);
  try {
    m->forward_batch({{"input_ids", at::zeros({1, 17}, at::kLong)}});
  } catch (const RecipeError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("exceeds block_size 16"));
  }
  try {
    m->forward_batch({{"ids", at::zeros({1, 4}, at::kLong)}});
    FAIL();
  } catch (const RecipeError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("\"input_ids\", which is missing (fields: ids)"));
  }
  EXPECT_THROW(m->forward_batch({{"input_ids", at::zeros({1, 4})}}), RecipeError);
  EXPECT_THROW(m->forward_batch({{"input_ids", at::zeros({1, 4}, at::kLong)}, {"labels", at::zeros({1, 5}, at::kLong)}}), RecipeError);
  GPTConfig bad = small();
  bad.n_head = 5;
  EXPECT_THROW(make_gpt(bad), RecipeError);
}

TEST(GPT, DropoutOnlyInTraining) {
  GPTConfig c = small();
  c.dropout = 0.2;
  auto m = make_gpt(c);
  at::Tensor ids = at::randint(0, 50, {2, 8}, at::kLong);
  m->train();
  EXPECT_FALSE(m->forward_batch({{"input_ids", ids}}).at("logits").equal(m->forward_batch({{"input_ids", ids}}).at("logits")));
  m->eval();
  EXPECT_TRUE(m->forward_batch({{"input_ids", ids}}).at("logits").equal(m->forward_batch({{"input_ids", ids}}).at("logits")));
}

TEST(GPT, GradientsReachEveryParameterAndDoubleWorks) {
  auto m = make_gpt(small());
  at::Tensor ids = at::randint(0, 50, {2, 8}, at::kLong);
  m->forward_batch({{"input_ids", ids}, {"labels", ids}}).at("loss").backward();
  for (const auto& [name, p] : m->named_parameters()) {
    ASSERT_TRUE(p.grad().defined()) << name;
    EXPECT_GT(p.grad().abs().sum().item<double>(), 0) << name;
  }
  m->to(at::kDouble);
  EXPECT_EQ(m->forward_batch({{"input_ids", ids}}).at("logits").scalar_type(), at::kDouble);
}

TEST(GPT, AbsurdSizesAreRefusedBeforeBuildingAnything) {
  // Found by fuzzing: n_layer = 4e18 spent hours creating layers. Refused at once instead.
  GPTConfig c = small();
  c.n_layer = 4099276460824344803;
  EXPECT_THAT([&] { make_gpt(c); }, ::testing::ThrowsMessage<RecipeError>(::testing::HasSubstr("more than 100000 layers")));
  c = small();
  c.n_embd = 1 << 20;
  c.n_head = 1;
  c.n_layer = 2;
  EXPECT_THAT([&] { make_gpt(c); }, ::testing::ThrowsMessage<RecipeError>(::testing::HasSubstr("parameters (more than 10^12")));
}
