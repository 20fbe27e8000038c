// Host facts (host_facts.h): the decisions a model takes from its batch's values are answered
// from the host copy while a scope names the very tensor it is given, and computed from the
// tensor otherwise. The rotary frequencies are a buffer (so they move with the model) that
// keeps fp32. The id ranges the Trainer checks on the host batch (check_id_ranges).
#include <gtest/gtest.h>

#include "runtime/core/errors.h"
#include "runtime/kernels/packed_attention.h"
#include "runtime/models/batch_inputs.h"
#include "runtime/models/builtin.h"
#include "runtime/models/host_facts.h"

using namespace runner;
using namespace runner::models;

namespace {

LlamaConfig tiny_llama() {
  LlamaConfig c;
  c.vocab_size = 40, c.hidden_size = 16, c.intermediate_size = 32, c.num_hidden_layers = 2, c.num_attention_heads = 4;
  c.num_key_value_heads = 2, c.max_position_embeddings = 32;
  return c;
}

TensorMap batch_with_padding() {
  at::manual_seed(5);
  at::Tensor ids = at::randint(0, 40, {2, 6}, at::kLong);
  at::Tensor mask = at::ones({2, 6}, at::kLong);
  mask[0].narrow(0, 0, 2).fill_(0);  // row 0 is left-padded
  return {{"input_ids", ids}, {"attention_mask", mask}};
}

}  // namespace

TEST(HostFacts, DescribeMasksAndPackedPositions) {
  const TensorMap padded = batch_with_padding();
  EXPECT_FALSE(host_facts(padded, padded).mask_hides_nothing.value);
  TensorMap full = padded;
  full["attention_mask"] = at::ones({2, 6}, at::kLong);
  EXPECT_TRUE(host_facts(full, full).mask_hides_nothing.value);
  TensorMap packed{{"position_ids", at::tensor({0, 1, 2, 0, 1, 2, 3, 0}, at::kLong).view({1, 8})}};
  EXPECT_TRUE(host_facts(packed, packed).positions_restart.value);
  TensorMap plain{{"position_ids", at::arange(3, 11, at::kLong).view({1, 8})}};  // an offset is no restart
  EXPECT_FALSE(host_facts(plain, plain).positions_restart.value);
  EXPECT_EQ(host_facts(TensorMap{}, TensorMap{}).mask_hides_nothing.tensor, nullptr);
}

TEST(HostFacts, LlamaTakesItsMaskDecisionFromTheFactAboutThatTensor) {
  at::manual_seed(0);
  ModulePtr model = make_llama(tiny_llama());
  model->eval();
  const TensorMap batch = batch_with_padding();
  TensorMap no_mask = batch;
  no_mask.erase("attention_mask");
  const at::Tensor masked = model->forward_batch(batch).at("logits"), unmasked = model->forward_batch(no_mask).at("logits");
  ASSERT_FALSE(masked[0].allclose(unmasked[0]));  // the padding matters for row 0
  // A fact that (wrongly) says the mask hides nothing is believed: the model drops the mask
  // without reading it, which proves the fact replaced the read.
  TensorMap claims_full = batch;
  claims_full["attention_mask"] = at::ones({2, 6}, at::kLong);
  {
    const HostFactsScope scope(host_facts(claims_full, batch));
    EXPECT_TRUE(model->forward_batch(batch).at("logits").equal(unmasked));
    // Another tensor (a hook's own copy of the mask) has no fact: it is read.
    TensorMap copy = batch;
    copy["attention_mask"] = batch.at("attention_mask").clone();
    EXPECT_TRUE(model->forward_batch(copy).at("logits").allclose(masked));
  }
  // Outside the scope the fact is gone; a true fact gives the computed answer.
  EXPECT_TRUE(model->forward_batch(batch).at("logits").allclose(masked));
  const HostFactsScope scope(host_facts(batch, batch));
  EXPECT_TRUE(model->forward_batch(batch).at("logits").allclose(masked));
}

TEST(HostFacts, AnEditedTensorLosesItsFact) {
  TensorMap batch = batch_with_padding();
  const HostFactsScope scope(host_facts(batch, batch));
  ASSERT_EQ(known_mask_hides_nothing(batch.at("attention_mask")), std::optional<bool>(false));
  batch.at("attention_mask").fill_(1);  // in place: the version counter moves on
  EXPECT_EQ(known_mask_hides_nothing(batch.at("attention_mask")), std::nullopt);
}

TEST(HostFacts, PackedPositionsFromTheFactEqualComputedOnes) {
  at::manual_seed(1);
  ModulePtr model = make_llama(tiny_llama());
  model->eval();
  const TensorMap batch{{"input_ids", at::randint(0, 40, {1, 8}, at::kLong)},
                        {"position_ids", at::tensor({0, 1, 2, 0, 1, 2, 3, 4}, at::kLong).view({1, 8})}};
  const at::Tensor computed = model->forward_batch(batch).at("logits");
  const HostFactsScope scope(host_facts(batch, batch));
  EXPECT_TRUE(model->forward_batch(batch).at("logits").equal(computed));
  // The second sequence does not see the first: its logits equal the second sequence alone.
  const TensorMap second{{"input_ids", batch.at("input_ids").narrow(1, 3, 5)}};
  EXPECT_TRUE(computed.narrow(1, 3, 5).allclose(model->forward_batch(second).at("logits"), 1e-5, 1e-5));
}

TEST(HostFacts, PackedSequencesAreOffsetsAmongTheFlattenedTokensForAVarlenKernel) {
  // Row 0 packs 3 + 4 + 1 tokens; row 1 continues from an offset (no restart: one sequence).
  const at::Tensor positions = at::tensor({0, 1, 2, 0, 1, 2, 3, 0, 5, 6, 7, 8, 9, 10, 11, 12}, at::kLong).view({2, 8});
  const PackedSequences s = packed_sequences(positions);
  EXPECT_EQ(s.cu_seqlens.scalar_type(), at::kInt);
  EXPECT_TRUE(s.cu_seqlens.equal(at::tensor({0, 3, 7, 8, 16}, at::kInt))) << s.cu_seqlens;
  EXPECT_EQ(s.max_len, 8);
  // The facts carry them for a batch on a GPU only (only a GPU has the kernel): not here.
  const TensorMap batch{{"position_ids", positions}};
  const HostFacts facts = host_facts(batch, batch);
  EXPECT_TRUE(facts.positions_restart.value);
  EXPECT_FALSE(facts.sequences.cu_seqlens.defined());
  const HostFactsScope scope(facts);
  EXPECT_EQ(known_packed_sequences(positions), nullptr);
  // The CPU has no varlen kernel: Llama keeps the block-diagonal mask there.
  EXPECT_FALSE(kernels::flash_attention_available(at::Device(at::kCPU), at::kBFloat16, 64));
}

TEST(RotaryFrequencies, AreABufferThatMovesWithTheModelAndKeepsFp32) {
  ModulePtr model = make_llama(tiny_llama());
  at::Tensor inv_freq;
  for (const auto& [name, t] : model->named_buffers())
    if (name == "model.rotary_emb.inv_freq") inv_freq = t;
  ASSERT_TRUE(inv_freq.defined()) << "HF's name for the buffer (Module::to(device) moves every buffer)";
  for (const auto& [name, t] : model->state_dict()) EXPECT_NE(name, "model.rotary_emb.inv_freq");  // not saved (HF: persistent=False)
  model->to(at::kBFloat16);
  EXPECT_EQ(inv_freq.scalar_type(), at::kFloat);
  EXPECT_EQ(model->parameters().front().scalar_type(), at::kBFloat16);
}

TEST(IdRanges, OutOfRangeIdsAndLabelsAreDataErrorsNamingTheField) {
  ModulePtr model = make_llama(tiny_llama());
  TensorMap ok{{"input_ids", at::tensor({0, 39}, at::kLong).view({1, 2})}, {"labels", at::tensor({-100, 39}, at::kLong).view({1, 2})}};
  EXPECT_NO_THROW(check_id_ranges(*model, ok));
  TensorMap bad_id = ok;
  bad_id["input_ids"] = at::tensor({0, 40}, at::kLong).view({1, 2});
  try {
    check_id_ranges(*model, bad_id);
    FAIL() << "no error";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("input_ids holds 40"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("vocab_size = 40"), std::string::npos) << e.what();
  }
  TensorMap bad_label = ok;
  bad_label["labels"] = at::tensor({-1, 3}, at::kLong).view({1, 2});
  EXPECT_THROW(check_id_ranges(*model, bad_label), DataError);
  TensorMap float_labels = ok;  // not ids: a regression target is not checked
  float_labels["labels"] = at::tensor({-1.5, 300.0}).view({1, 2});
  EXPECT_NO_THROW(check_id_ranges(*model, float_labels));
}

TEST(IdRanges, EveryLayoutAndIntegerDtypeNamesTheFirstIdOutside) {
  // int64 and int32 contiguous host tensors are scanned directly; other integer dtypes and
  // strided views take ATen's ops: the same verdict and the same first value (row-major).
  ModulePtr model = make_llama(tiny_llama());
  const at::Tensor ids = at::tensor({3, 41, 5, -100, 7, 40}, at::kLong).view({2, 3});  // outside in row-major order: 41, -100, 40
  auto first_named = [&](const std::string& field, const at::Tensor& t) -> std::string {
    TensorMap batch{{"input_ids", at::zeros({2, 3}, at::kLong)}, {"labels", at::zeros({2, 3}, at::kLong)}};
    batch[field] = t;
    try {
      check_id_ranges(*model, batch);
    } catch (const DataError& e) {
      const std::string what = e.what(), from = field + " holds ";
      const size_t at = what.find(from) + from.size();
      return what.substr(at, what.find(',', at) - at);
    }
    return "none";
  };
  for (const at::ScalarType dtype : {at::kLong, at::kInt, at::kShort}) {
    EXPECT_EQ(first_named("input_ids", ids.to(dtype)), "41") << dtype;
    EXPECT_EQ(first_named("input_ids", ids.to(dtype).t().contiguous().t()), "41") << dtype;  // strided: ATen's ops
    EXPECT_EQ(first_named("input_ids", ids.to(dtype).t()), "-100") << dtype;  // a transposed view (3, 2): row-major 3, -100, 41, ...
  }
  EXPECT_EQ(first_named("labels", at::tensor({3, -100, 40, 2}, at::kLong).view({2, 2})), "40");  // -100 is an ignored label
  EXPECT_EQ(first_named("labels", at::tensor({3, -100, 40, 2}, at::kInt).view({2, 2})), "40");
  EXPECT_EQ(first_named("input_ids", at::tensor({-100, 41}, at::kLong).view({1, 2})), "-100");  // not ignored in input_ids
  EXPECT_EQ(first_named("input_ids", at::tensor({0, 39, 39, 0}, at::kInt).view({2, 2})), "none");
}
