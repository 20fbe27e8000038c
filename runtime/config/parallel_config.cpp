#include "runtime/config/parallel_config.h"

#include <algorithm>
#include <sstream>

#include "runtime/core/did_you_mean.h"
#include "runtime/core/errors.h"
#include "runtime/core/text.h"
#include "runtime/io/atomic_file.h"
#include "runtime/config/deepspeed_config.h"
#include "runtime/config/key_policy.h"

namespace runner::config {

using nlohmann::json;

namespace {

const std::vector<std::string> kFsdpOptions = {"full_shard", "shard_grad_op", "no_shard", "hybrid_shard", "hybrid_shard_zero2",
                                               "offload", "auto_wrap"};
// HF's fsdp_config keys (an "fsdp_" prefix is accepted and dropped, as HF does).
const std::vector<std::string> kFsdpConfigKeys = {
    "min_num_params", "transformer_layer_cls_to_wrap", "backward_prefetch", "forward_prefetch", "limit_all_gathers",
    "activation_checkpointing", "state_dict_type", "use_orig_params", "sync_module_states", "cpu_ram_efficient_loading",
    "offload_params", "reshard_after_forward", "auto_wrap_policy", "version", "xla", "xla_fsdp_v2", "xla_fsdp_grad_ckpt",
    "xla_fsdp_settings", "cpu_offload", "sharding_strategy"};

// fsdp_config keys runner does not read below (key_policy.h).
const std::vector<KeyPolicy> kFsdpPolicies = {
    {"reshard_after_forward", {true}, false, "the sharding strategy decides (full_shard frees units after forward; results are the same)"},
    {"limit_all_gathers", {true}, false, "ZeRO-3 prefetch is always bounded (stage3_max_live_parameters)"},
    {"use_orig_params", {true}, false, "the optimizer always sees the original parameters"},
    {"sync_module_states", {true}, false, "every rank always starts from rank 0's weights"},
    // What true asks for (no rank loads the whole pretrained model) runner always does:
    // models.from_pretrained weights are read shard by shard under full sharding.
    {"cpu_ram_efficient_loading", {true}, false,
     "under full sharding every rank reads only its shards of a models.from_pretrained model's files anyway (docs/llm.md)"},
    // The weights trained are the same; only the checkpoint layout differs (runner's is
    // world-size independent already: full weights plus per-rank optimizer shards).
    {"state_dict_type", {"FULL_STATE_DICT"}, false,
     "checkpoints hold the full model.safetensors and, when sharded, per-rank optimizer files (distributed.md)"},
    {"version", {1, 2}, true, "FSDP versions 1 and 2 only"},
    {"auto_wrap_policy", {"TRANSFORMER_BASED_WRAP", "SIZE_BASED_WRAP"}, true, "units are needed to shard (TRANSFORMER_BASED_WRAP or SIZE_BASED_WRAP)"},
    {"xla", {false}, true, "XLA and TPUs are not supported"},
    {"xla_fsdp_v2", {false}, true, "XLA and TPUs are not supported"},
    {"xla_fsdp_grad_ckpt", {false}, true, "XLA and TPUs are not supported"},
    {"xla_fsdp_settings", {}, true, "XLA and TPUs are not supported"},
};

// Accelerate's names of the sharding strategies (also their enum values 1-5).
std::string fsdp_strategy_name(const json& v) {
  static const std::vector<std::string> names = {"full_shard", "shard_grad_op", "no_shard", "hybrid_shard", "hybrid_shard_zero2"};
  if (v.is_number_integer() && v.get<int>() >= 1 && v.get<int>() <= 5) return names[v.get<int>() - 1];
  if (v.is_string()) {
    const std::string t = to_lower(v.get<std::string>());
    if (std::find(names.begin(), names.end(), t) != names.end()) return t;
  }
  throw ArgumentError("fsdp_config.sharding_strategy: " + v.dump() + " (FULL_SHARD, SHARD_GRAD_OP, NO_SHARD, HYBRID_SHARD or HYBRID_SHARD_ZERO2)");
}

std::vector<std::string> fsdp_tokens(const json& fsdp) {
  std::vector<std::string> out;
  if (fsdp.is_boolean()) {
    if (fsdp.get<bool>()) out.push_back("full_shard");
  } else if (fsdp.is_string()) {
    std::istringstream in(fsdp.get<std::string>());
    for (std::string t; in >> t;) out.push_back(t);
  } else if (fsdp.is_array()) {
    for (const auto& t : fsdp) out.push_back(t.is_string() ? t.get<std::string>() : t.dump());
  } else if (!fsdp.is_null()) {
    throw ArgumentError("args.fsdp: expected a string like \"full_shard auto_wrap\" or a list, got " + fsdp.dump());
  }
  return out;
}

// Checks the keys and returns the configuration as an object (a file is read).
json check_fsdp_config(const json& cfg_in) {
  json cfg = cfg_in;
  std::string where = "args.fsdp_config";
  if (cfg.is_string()) {
    where = cfg.get<std::string>();
    try {
      cfg = io::read_json_file(where);
    } catch (const Error& e) {
      throw ArgumentError("cannot read the FSDP config: " + e.message(), where);
    }
  }
  if (cfg.is_null()) return json::object();
  if (!cfg.is_object()) throw ArgumentError("expected an object, got " + cfg.dump(), where);
  for (auto it = cfg.begin(); it != cfg.end(); ++it) {
    std::string key = it.key();
    if (key.rfind("fsdp_", 0) == 0) key = key.substr(5);
    if (std::find(kFsdpConfigKeys.begin(), kFsdpConfigKeys.end(), key) == kFsdpConfigKeys.end())
      throw ArgumentError("unknown fsdp_config key '" + it.key() + "'" + did_you_mean(key, kFsdpConfigKeys), where);
    if (key == "state_dict_type" && it->is_string()) {
      const std::string v = it->get<std::string>();
      if (v != "FULL_STATE_DICT" && v != "SHARDED_STATE_DICT")
        throw ArgumentError("fsdp_config.state_dict_type: \"" + v + "\" (FULL_STATE_DICT or SHARDED_STATE_DICT)", where);
    }
  }
  json out = json::object();  // keys without the fsdp_ prefix
  for (auto it = cfg.begin(); it != cfg.end(); ++it) out[it.key().rfind("fsdp_", 0) == 0 ? it.key().substr(5) : it.key()] = *it;
  return out;
}

// HF accepts booleans and their spellings as strings ("true", "false") in fsdp_config.
bool fsdp_flag(const json& cfg, const std::string& key, bool fallback) {
  if (!cfg.contains(key) || cfg[key].is_null()) return fallback;
  const json& v = cfg[key];
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_string()) {
    const std::string t = to_lower(v.get<std::string>());
    if (t == "true") return true;
    if (t == "false") return false;
  }
  throw ArgumentError("fsdp_config." + key + ": expected true or false, got " + v.dump());
}

}  // namespace

ParallelPlan resolve_parallel(TrainingArguments& args, int world_size, int num_nodes, int64_t hidden_size) {
  ParallelPlan plan;
  dist::ParallelConfig& c = plan.config;
  if (args.ddp_bucket_cap_mb) {
    if (*args.ddp_bucket_cap_mb <= 0) throw ArgumentError("args.ddp_bucket_cap_mb: must be > 0 (got " + std::to_string(*args.ddp_bucket_cap_mb) + ")");
    c.bucket_cap_bytes = *args.ddp_bucket_cap_mb << 20;
  }
  c.broadcast_buffers = args.ddp_broadcast_buffers.value_or(true);
  c.description = world_size > 1 ? "ddp" : "single process";
  c.ordered_reduction = args.full_determinism;  // same weights whatever the world size

  const std::vector<std::string> fsdp = fsdp_tokens(args.fsdp);
  const bool has_ds = !args.deepspeed.is_null() && !(args.deepspeed.is_string() && args.deepspeed.get<std::string>().empty());
  if (has_ds && !fsdp.empty()) throw ArgumentError("args.fsdp: FSDP and DeepSpeed cannot be used together (HF refuses both)");

  if (has_ds) {
    DeepSpeedSettings ds = read_deepspeed_config(args.deepspeed, args, world_size, hidden_size);
    plan.deepspeed = ds.resolved;
    plan.warnings = ds.warnings;
    c.zero_stage = ds.stage;
    c.bucket_cap_bytes = ds.reduce_bucket_size * 4;  // DeepSpeed sizes buckets in elements (fp32 here)
    c.allgather_bucket_elems = ds.allgather_bucket_size;
    c.zero3 = ds.zero3;
    plan.lr_factor = ds.lr_factor;
    c.offload_optimizer = ds.offload_optimizer;
    c.pin_optimizer_offload = ds.pin_optimizer_offload;
    if (args.ddp_bucket_cap_mb)
      plan.warnings.push_back("args.ddp_bucket_cap_mb has no effect under a DeepSpeed config: zero_optimization.reduce_bucket_size "
                              "sizes the gradient buckets");
    if (ds.resolved.contains("optimizer")) args.optim = "adamw_torch";
    c.description = "DeepSpeed ZeRO stage " + std::to_string(ds.stage) + (ds.offload_optimizer ? ", optimizer offloaded to the CPU" : "");
  } else if (!fsdp.empty()) {
    const json cfg = check_fsdp_config(args.fsdp_config);
    apply_key_policies(cfg, kFsdpPolicies, "fsdp_config.", "", plan.warnings);
    std::string strategy;
    for (const auto& t : fsdp) {
      if (std::find(kFsdpOptions.begin(), kFsdpOptions.end(), t) == kFsdpOptions.end())
        throw ArgumentError("args.fsdp: unknown option '" + t + "'" + did_you_mean(t, kFsdpOptions));
      if (t == "offload") c.offload_optimizer = true;  // FSDP CPUOffload: the step on the CPU
      if (t == "offload" || t == "auto_wrap") continue;
      if (!strategy.empty()) throw ArgumentError("args.fsdp: two sharding strategies ('" + strategy + "' and '" + t + "')");
      strategy = t;
    }
    if (cfg.contains("sharding_strategy")) {  // Accelerate writes the strategy here
      const std::string s = fsdp_strategy_name(cfg["sharding_strategy"]);
      if (!strategy.empty() && strategy != s)
        throw ArgumentError("fsdp_config.sharding_strategy: \"" + s + "\" contradicts args.fsdp's \"" + strategy + "\"");
      strategy = s;
    }
    if (fsdp_flag(cfg, "offload_params", false) || fsdp_flag(cfg, "cpu_offload", false)) c.offload_optimizer = true;
    // FSDP's activation checkpointing is the same recompute as gradient_checkpointing (its
    // units are the model's blocks); HF refuses both at once.
    if (fsdp_flag(cfg, "activation_checkpointing", false)) {
      if (args.gradient_checkpointing)
        throw ArgumentError("fsdp_config.activation_checkpointing and args.gradient_checkpointing can't both be true (as in HF): use one");
      args.gradient_checkpointing = true;
    }
    if (strategy.empty()) strategy = "full_shard";  // HF's default when only offload/auto_wrap are given
    // Hybrid strategies shard inside a node and replicate across nodes (FSDP's HYBRID_SHARD
    // and _HYBRID_SHARD_ZERO2): on one node they are exactly their single-node counterparts.
    c.hybrid_shard = (strategy == "hybrid_shard" || strategy == "hybrid_shard_zero2") && num_nodes > 1;
    if (c.hybrid_shard && args.full_determinism)
      throw ArgumentError("args.fsdp: " + strategy + " across nodes with full_determinism is not implemented (its ordered sums assume one shard group); use full_shard");
    c.zero_stage = strategy == "no_shard" ? 0 : (strategy == "shard_grad_op" || strategy == "hybrid_shard_zero2") ? 2 : 3;
    c.zero3.offload = c.offload_optimizer && c.zero_stage == 3;  // FSDP's CPUOffload moves the parameter shards too
    if (cfg.contains("transformer_layer_cls_to_wrap")) {
      const json& w = cfg["transformer_layer_cls_to_wrap"];
      if (w.is_string()) c.zero3.wrap_classes.push_back(w.get<std::string>());
      else if (w.is_array())
        for (const auto& x : w) c.zero3.wrap_classes.push_back(x.get<std::string>());
      else throw ArgumentError("fsdp_config.transformer_layer_cls_to_wrap: a class name or a list of them");
    }
    if (cfg.contains("min_num_params")) {
      if (!cfg["min_num_params"].is_number()) throw ArgumentError("fsdp_config.min_num_params: a number");
      c.zero3.min_num_params = static_cast<int64_t>(cfg["min_num_params"].get<double>());
    }
    c.zero3.persistence_threshold = 0;  // FSDP shards every unit
    // FSDP prefetches one unit: forward only when asked, backward by default (BACKWARD_PRE).
    c.zero3.prefetch_forward = fsdp_flag(cfg, "forward_prefetch", false) ? 1 : 0;
    const std::string bp = cfg.contains("backward_prefetch") && cfg["backward_prefetch"].is_string()
                               ? to_lower(cfg["backward_prefetch"].get<std::string>())
                               : "backward_pre";
    if (bp != "backward_pre" && bp != "backward_post" && bp != "no_prefetch")
      throw ArgumentError("fsdp_config.backward_prefetch: \"" + bp + "\" (backward_pre, backward_post or no_prefetch)");
    c.zero3.prefetch_backward = bp == "no_prefetch" ? 0 : 1;
    c.zero3.backward_post = bp == "backward_post";
    c.description = "FSDP " + strategy + (c.offload_optimizer ? ", offloaded to the CPU" : "");
  } else if (!args.fsdp_config.is_null() && !check_fsdp_config(args.fsdp_config).empty()) {
    plan.warnings.push_back("args.fsdp_config has no effect without args.fsdp (as in HF)");
  }
  if (c.ordered_reduction) c.description += ", ordered reduction";
  // The batch-size search tries a batch on each rank alone and the ranks then vote; under
  // ZeRO-2/3 (and the ordered reduction) backward itself runs collectives, so a rank out of
  // memory there would leave its peers waiting (HF refuses ZeRO-3 too).
  if (args.auto_find_batch_size && world_size > 1 && (c.zero_stage >= 2 || c.ordered_reduction))
    throw ArgumentError(std::string("args.auto_find_batch_size: not available with ") +
                        (c.ordered_reduction ? "full_determinism" : "ZeRO-2/3 or FSDP sharding") +
                        " over several ranks (backward runs collectives, so the ranks could not agree on an out-of-memory error); "
                        "set per_device_train_batch_size, or use DDP or ZeRO-1");
  return plan;
}

}  // namespace runner::config
