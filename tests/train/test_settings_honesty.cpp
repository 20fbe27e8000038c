// No setting is accepted and silently ignored: every argument, DeepSpeed key and fsdp_config
// key the reliability review listed either works, is refused with a message naming it, or
// (only where results cannot change) warns that it has no effect.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/core/errors.h"
#include "runtime/core/training_args.h"
#include "runtime/config/parallel_config.h"

using namespace runner;
using ::testing::HasSubstr;
using nlohmann::json;

namespace {

enum class Outcome { kWarns, kRefused, kAccepted };

struct Result {
  Outcome outcome;
  std::string text;  // the error, or every warning joined
};

// `hidden`: the model's hidden size, which HF fills a DeepSpeed config's "auto" sizes from.
Result resolve(TrainingArguments a, int world = 2, int64_t hidden = 64) {
  try {
    std::string text;
    for (const auto& w : a.finalize()) text += w + "\n";
    const auto plan = config::resolve_parallel(a, world, 1, hidden);
    for (const auto& w : plan.warnings) text += w + "\n";
    return {text.empty() ? Outcome::kAccepted : Outcome::kWarns, text};
  } catch (const ArgumentError& e) {
    return {Outcome::kRefused, e.what()};
  }
}

Result with_arg(const std::string& name, const json& value) {
  TrainingArguments a;
  a.set(name, value);
  return resolve(a);
}

Result with_deepspeed(const json& extra) {
  TrainingArguments a;
  json ds = {{"zero_optimization", {{"stage", 2}}}};
  ds.merge_patch(extra);
  a.deepspeed = ds;
  return resolve(a);
}

Result with_fsdp(const json& config) {
  TrainingArguments a;
  a.fsdp = "full_shard";
  a.fsdp_config = config;
  return resolve(a);
}

void expect(const Result& r, Outcome want, const std::string& key) {
  EXPECT_EQ(static_cast<int>(r.outcome), static_cast<int>(want)) << key << ": " << r.text;
  if (want != Outcome::kAccepted) EXPECT_THAT(r.text, HasSubstr(key));
  if (want == Outcome::kWarns) EXPECT_THAT(r.text, HasSubstr("no effect"));
}

}  // namespace

TEST(SettingsHonesty, ArgumentsWarnOrAreRefused) {
  expect(with_arg("dataloader_persistent_workers", true), Outcome::kWarns, "dataloader_persistent_workers");
  expect(with_arg("ray_scope", "all"), Outcome::kWarns, "ray_scope");
  expect(with_arg("fp16_opt_level", "O2"), Outcome::kWarns, "fp16_opt_level");
  expect(with_arg("ddp_find_unused_parameters", false), Outcome::kWarns, "ddp_find_unused_parameters");
  expect(with_arg("ddp_find_unused_parameters", true), Outcome::kAccepted, "ddp_find_unused_parameters");
  expect(with_arg("eval_do_concat_batches", false), Outcome::kRefused, "eval_do_concat_batches");
  expect(with_arg("debug", "underflow_overflow"), Outcome::kRefused, "debug");
  // Defaults say nothing.
  expect(resolve(TrainingArguments{}), Outcome::kAccepted, "");
}

TEST(SettingsHonesty, AcceleratorConfigKeysAreChecked) {
  expect(with_arg("accelerator_config", json{{"split_batches", true}}), Outcome::kRefused, "split_batches");
  expect(with_arg("accelerator_config", json{{"even_batches", false}}), Outcome::kRefused, "even_batches");
  expect(with_arg("accelerator_config", json{{"use_seedable_sampler", false}}), Outcome::kRefused, "use_seedable_sampler");
  expect(with_arg("accelerator_config", json{{"gradient_accumulation_kwargs", {{"num_steps", 2}}}}), Outcome::kRefused,
         "gradient_accumulation_kwargs");
  expect(with_arg("accelerator_config", json{{"dispatch_batches", true}}), Outcome::kWarns, "dispatch_batches");
  expect(with_arg("accelerator_config", json{{"non_blocking", true}}), Outcome::kWarns, "non_blocking");
  expect(with_arg("accelerator_config", json{{"split_batches", false}, {"even_batches", true}}), Outcome::kAccepted, "");
  expect(with_arg("accelerator_config", json{{"split_batchs", false}}), Outcome::kRefused, "did you mean 'split_batches'");
  expect(with_arg("accelerator_config", R"({"split_batches": true})"), Outcome::kRefused, "split_batches");
}

TEST(SettingsHonesty, DeepSpeedKeysWarnOrAreRefused) {
  expect(with_deepspeed({{"zero_allow_untested_optimizer", true}}), Outcome::kWarns, "zero_allow_untested_optimizer");
  expect(with_deepspeed({{"prescale_gradients", true}}), Outcome::kWarns, "prescale_gradients");
  expect(with_deepspeed({{"gradient_predivide_factor", 2.0}}), Outcome::kWarns, "gradient_predivide_factor");
  expect(with_deepspeed({{"communication_data_type", "fp16"}}), Outcome::kRefused, "communication_data_type");
  expect(with_deepspeed({{"communication_data_type", "fp32"}}), Outcome::kAccepted, "");
  expect(with_deepspeed({{"data_types", {{"grad_accum_dtype", "bf16"}}}}), Outcome::kRefused, "data_types.grad_accum_dtype");
  expect(with_deepspeed({{"torch_autocast", {{"enabled", true}}}}), Outcome::kRefused, "torch_autocast.enabled");
  for (const char* k : {"zero_quantized_weights", "zero_quantized_nontrainable_weights", "zero_quantized_gradients"})
    expect(with_deepspeed({{"zero_optimization", {{k, true}}}}), Outcome::kRefused, k);
  expect(with_deepspeed({{"zero_optimization", {{"zero_hpz_partition_size", 8}}}}), Outcome::kRefused, "zero_hpz_partition_size");
  expect(with_deepspeed({{"zero_optimization", {{"overlap_comm", false}}}}), Outcome::kWarns, "overlap_comm");
  expect(with_deepspeed({{"wall_clock_breakdown", true}}), Outcome::kWarns, "wall_clock_breakdown");
  // Several keys with one reason: one line naming them all.
  const Result two = with_deepspeed({{"zero_optimization", {{"round_robin_gradients", true}, {"sub_group_size", 1e8}}}});
  expect(two, Outcome::kWarns, "zero_optimization.round_robin_gradients, zero_optimization.sub_group_size have no effect");
  // The HF docs' values for the engine knobs (and "auto") pass silently.
  expect(with_deepspeed({{"zero_optimization", {{"overlap_comm", true}, {"contiguous_gradients", true}, {"reduce_scatter", true},
                                                {"allgather_partitions", true}, {"sub_group_size", 1e9}, {"reduce_bucket_size", "auto"}}}}),
         Outcome::kAccepted, "");
}

TEST(SettingsHonesty, LegacyCpuOffloadMeansOffloadOptimizer) {
  TrainingArguments a;
  a.deepspeed = json{{"zero_optimization", {{"stage", 2}, {"cpu_offload", true}}}};
  const auto plan = config::resolve_parallel(a, 2);
  EXPECT_TRUE(plan.config.offload_optimizer);
  ASSERT_EQ(plan.warnings.size(), 1u);
  EXPECT_THAT(plan.warnings[0], HasSubstr("cpu_offload is deprecated; use offload_optimizer"));
  expect(with_deepspeed({{"zero_optimization", {{"cpu_offload", true}, {"offload_optimizer", {{"device", "cpu"}}}}}}), Outcome::kRefused,
         "cpu_offload and offload_optimizer");
}

TEST(SettingsHonesty, FsdpConfigKeysWarnOrAreRefused) {
  // activation_checkpointing is real (gradient checkpointing); with gradient_checkpointing too it is refused, as in HF.
  {
    TrainingArguments a;
    a.fsdp = "full_shard";
    a.fsdp_config = json{{"activation_checkpointing", true}};
    config::resolve_parallel(a, 2);
    EXPECT_TRUE(a.gradient_checkpointing);
    a.fsdp_config = json{{"fsdp_activation_checkpointing", "true"}};
    EXPECT_THROW(config::resolve_parallel(a, 2), ArgumentError);
  }
  expect(with_fsdp({{"reshard_after_forward", false}}), Outcome::kWarns, "reshard_after_forward");
  expect(with_fsdp({{"limit_all_gathers", false}}), Outcome::kWarns, "limit_all_gathers");
  expect(with_fsdp({{"use_orig_params", false}}), Outcome::kWarns, "use_orig_params");
  expect(with_fsdp({{"sync_module_states", false}}), Outcome::kWarns, "sync_module_states");
  expect(with_fsdp({{"cpu_ram_efficient_loading", false}}), Outcome::kWarns, "cpu_ram_efficient_loading");
  expect(with_fsdp({{"cpu_ram_efficient_loading", true}}), Outcome::kAccepted, "");
  expect(with_fsdp({{"state_dict_type", "SHARDED_STATE_DICT"}}), Outcome::kWarns, "state_dict_type");
  for (const char* k : {"xla", "xla_fsdp_v2", "xla_fsdp_grad_ckpt"}) expect(with_fsdp({{k, true}}), Outcome::kRefused, k);
  expect(with_fsdp({{"fsdp_xla_fsdp_settings", json::object()}}), Outcome::kRefused, "xla_fsdp_settings");
  // HF's defaults, with and without the fsdp_ prefix, pass silently.
  expect(with_fsdp({{"fsdp_use_orig_params", true}, {"limit_all_gathers", true}, {"sync_module_states", "true"},
                    {"state_dict_type", "FULL_STATE_DICT"}, {"version", 1}}),
         Outcome::kAccepted, "");
}

TEST(SettingsHonesty, FsdpConfigStrategyAndOffloadAreRead) {
  TrainingArguments a;
  a.fsdp = "auto_wrap";
  a.fsdp_config = json{{"fsdp_sharding_strategy", "SHARD_GRAD_OP"}, {"fsdp_offload_params", true}};
  auto plan = config::resolve_parallel(a, 2);
  EXPECT_EQ(plan.config.zero_stage, 2);
  EXPECT_TRUE(plan.config.offload_optimizer);
  a.fsdp = "full_shard";
  EXPECT_THAT(resolve(a).text, HasSubstr("contradicts args.fsdp's \"full_shard\""));
  TrainingArguments b;
  b.fsdp_config = json{{"use_orig_params", false}};
  expect(resolve(b), Outcome::kWarns, "without args.fsdp");
}

// Hybrid strategies: their single-node stage, and hybrid sharding only across nodes (the
// multi-node behaviour is tests/integration/test_multinode.py's).
TEST(SettingsHonesty, HybridShardIsItsStageAndHybridOnlyAcrossNodes) {
  for (const auto& [strategy, stage] : std::vector<std::pair<std::string, int>>{{"hybrid_shard", 3}, {"hybrid_shard_zero2", 2}}) {
    TrainingArguments a;
    a.fsdp = strategy;
    EXPECT_EQ(config::resolve_parallel(a, 4, 2).config.zero_stage, stage) << strategy;
    EXPECT_TRUE(config::resolve_parallel(a, 4, 2).config.hybrid_shard) << strategy;
    EXPECT_FALSE(config::resolve_parallel(a, 2, 1).config.hybrid_shard) << strategy;
    a.full_determinism = true;
    EXPECT_THROW(config::resolve_parallel(a, 4, 2), ArgumentError) << strategy;
  }
  TrainingArguments f;
  f.fsdp = "full_shard";
  EXPECT_FALSE(config::resolve_parallel(f, 4, 2).config.hybrid_shard);
}

TEST(SettingsHonesty, DeepSpeedAutoSizesFollowTheModelsHiddenSize) {
  // HF's trainer_config_finalize: reduce_bucket_size = h², under ZeRO-3 prefetch 0.9·h² and
  // persistence 10·h; a model without a hidden size cannot fill them.
  TrainingArguments a;
  a.deepspeed = json{{"zero_optimization", {{"stage", 3}, {"reduce_bucket_size", "auto"}, {"stage3_prefetch_bucket_size", "auto"},
                                            {"stage3_param_persistence_threshold", "auto"}}}};
  const auto plan = config::resolve_parallel(a, 2, 1, /*hidden_size=*/64);
  EXPECT_EQ(plan.config.bucket_cap_bytes, 64 * 64 * 4);
  EXPECT_EQ(plan.config.zero3.prefetch_forward, static_cast<int64_t>(0.9 * 64 * 64));
  EXPECT_EQ(plan.config.zero3.persistence_threshold, 640);
  EXPECT_EQ(plan.deepspeed["zero_optimization"]["reduce_bucket_size"], 4096);
  EXPECT_EQ(resolve(a, 2, /*hidden=*/0).outcome, Outcome::kRefused);
  EXPECT_THAT(resolve(a, 2, 0).text, HasSubstr("the model's config has no hidden_size"));
  expect(resolve(a, 2, /*hidden=*/-1), Outcome::kWarns, "has no effect: the model is built by model_init");
}

TEST(SettingsHonesty, DeepSpeedOffloadSubKeysDoWhatDeepSpeedSays) {
  // pin_memory is read (DeepSpeed's default: unpinned); NVMe tuning keys warn; the legacy
  // cpu_offload_use_pin_memory pins both.
  for (bool pin : {false, true}) {
    TrainingArguments a;
    a.deepspeed = json{{"zero_optimization", {{"stage", 3}, {"offload_optimizer", {{"device", "cpu"}, {"pin_memory", pin}}},
                                              {"offload_param", {{"device", "cpu"}}}}}};
    const auto plan = config::resolve_parallel(a, 2, 1, 64);
    EXPECT_EQ(plan.config.pin_optimizer_offload, pin);
    EXPECT_FALSE(plan.config.zero3.pin_offload);
  }
  TrainingArguments legacy;
  legacy.deepspeed = json{{"zero_optimization", {{"stage", 2}, {"offload_optimizer", {{"device", "cpu"}}}, {"cpu_offload_use_pin_memory", true}}}};
  EXPECT_TRUE(config::resolve_parallel(legacy, 2, 1, 64).config.pin_optimizer_offload);
  expect(with_deepspeed({{"zero_optimization", {{"offload_optimizer", {{"device", "cpu"}, {"buffer_count", 8}, {"nvme_path", "/nvme"}}}}}}),
         Outcome::kWarns, "nvme_path, zero_optimization.offload_optimizer.buffer_count have no effect: it tunes NVMe offload");
  expect(with_deepspeed({{"zero_optimization", {{"offload_optimizer", {{"device", "cpu"}, {"pin_memory", "yes"}}}}}}), Outcome::kRefused,
         "pin_memory: expected true or false");
}

TEST(SettingsHonesty, DeepSpeedPrecisionAndOptimizerKeysSpeak) {
  expect(with_deepspeed({{"bf16", {{"enabled", false}, {"immediate_grad_update", false}}}}), Outcome::kRefused, "immediate_grad_update");
  expect(with_deepspeed({{"bf16", {{"enabled", false}, {"immediate_grad_update", true}}}}), Outcome::kAccepted, "");
  expect(with_deepspeed({{"optimizer", {{"type", "AdamW"}, {"params", {{"torch_adam", true}}}}}}), Outcome::kWarns,
         "optimizer.params.torch_adam has no effect");
  TrainingArguments a;
  a.ddp_bucket_cap_mb = 25;
  a.deepspeed = json{{"zero_optimization", {{"stage", 2}}}};
  expect(resolve(a), Outcome::kWarns, "ddp_bucket_cap_mb has no effect under a DeepSpeed config");
}

TEST(SettingsHonesty, TransformersV4NamesAreAliasesOrRefusedByName) {
  // Names v4.34 had: mapped to their successors, or refused with the reason (at v4's default,
  // as a v4 training_args.json lists them, dropped with a warning).
  TrainingArguments a;
  a.set("include_inputs_for_metrics", true);
  EXPECT_EQ(a.include_for_metrics, json::array({"inputs"}));
  TrainingArguments b;
  b.set("dispatch_batches", true);
  EXPECT_EQ(b.accelerator_config["dispatch_batches"], true);
  expect(resolve(b), Outcome::kWarns, "dispatch_batches is a transformers v4 name");
  expect(with_arg("push_to_hub_model_id", "me/model"), Outcome::kRefused, "hub_model_id");
  for (const auto& [name, v4_default, other] : std::vector<std::tuple<std::string, json, json>>{
           {"tpu_metrics_debug", false, true}, {"mp_parameters", "", "x"}, {"push_to_hub_organization", nullptr, "org"}}) {
    expect(with_arg(name, v4_default), Outcome::kWarns, name + " is a transformers v4 argument removed in v5");
    TrainingArguments c;
    EXPECT_THROW(c.set(name, other), ArgumentError) << name;
  }
  expect(with_arg("overwrite_output_dir", true), Outcome::kWarns, "overwrite_output_dir has no effect: transformers v5 removed it");
}

