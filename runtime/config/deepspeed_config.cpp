#include "runtime/config/deepspeed_config.h"

#include <cmath>
#include <set>

#include "runtime/core/did_you_mean.h"
#include "runtime/core/errors.h"
#include "runtime/core/text.h"
#include "runtime/io/atomic_file.h"
#include "runtime/config/key_policy.h"

namespace runner::config {

using nlohmann::json;

namespace {

// The keys DeepSpeed's config models accept (runtime/zero/config.py, offload_config.py,
// precision_config.py, constants.py); DeepSpeed forbids extra keys, and so do we.
const std::vector<std::string> kTopKeys = {
    "train_batch_size", "train_micro_batch_size_per_gpu", "gradient_accumulation_steps", "gradient_clipping", "fp16", "bf16",
    "bfloat16", "optimizer", "scheduler", "zero_optimization", "steps_per_print", "wall_clock_breakdown", "communication_data_type",
    "prescale_gradients", "gradient_predivide_factor", "gradient_allreduce_op", "zero_allow_untested_optimizer",
    "zero_force_ds_cpu_optimizer", "checkpoint", "data_types", "amp", "torch_autocast", "activation_checkpointing",
    "flops_profiler", "tensorboard", "wandb", "csv_monitor", "comet", "comms_logger", "dump_state", "memory_breakdown",
    "sparse_gradients", "seq_parallel_communication_data_type", "compile", "aio", "elasticity"};
const std::vector<std::string> kZeroKeys = {
    "stage", "contiguous_gradients", "reduce_scatter", "reduce_bucket_size", "use_multi_rank_bucket_allreduce",
    "allgather_partitions", "allgather_bucket_size", "overlap_comm", "load_from_fp32_weights", "elastic_checkpoint",
    "offload_param", "offload_optimizer", "cpu_offload", "cpu_offload_param", "cpu_offload_use_pin_memory", "sub_group_size",
    "stage3_prefetch_bucket_size", "prefetch_bucket_size", "stage3_param_persistence_threshold", "param_persistence_threshold",
    "stage3_model_persistence_threshold", "model_persistence_threshold", "stage3_max_live_parameters", "max_live_parameters",
    "stage3_max_reuse_distance", "max_reuse_distance", "stage3_gather_16bit_weights_on_model_save",
    "gather_16bit_weights_on_model_save", "stage3_gather_fp16_weights_on_model_save", "stage3_module_granularity_threshold",
    "module_granularity_threshold", "stage3_use_all_reduce_for_fetch_params", "use_all_reduce_for_fetch_params",
    "stage3_allgather_sequential", "allgather_sequential", "ignore_unused_parameters", "round_robin_gradients",
    "zero_hpz_partition_size", "zero_quantized_weights", "zero_quantized_nontrainable_weights", "zero_quantized_gradients",
    "memory_efficient_linear", "override_module_apply", "log_trace_cache_warnings", "enable_sanity_checks",
    "pipeline_loading_checkpoint", "mics_shard_size", "mics_hierarchical_params_gather", "leaf_module", "zenflow",
    "zeropp_loco_param", "legacy_stage1"};
const std::vector<std::string> kOffloadKeys = {"device", "nvme_path", "buffer_count", "buffer_size", "max_in_cpu", "pin_memory",
                                               "pipeline_read", "pipeline_write", "fast_init", "ratio", "super_offload",
                                               "cpuadam_cores_perc", "pipeline"};
const std::vector<std::string> kFp16Keys = {"enabled", "auto_cast", "loss_scale", "initial_scale_power", "loss_scale_window",
                                            "hysteresis", "consecutive_hysteresis", "min_loss_scale", "fp16_master_weights_and_grads"};
const std::vector<std::string> kBf16Keys = {"enabled", "immediate_grad_update", "check_grad_overflow", "bf16_master_weights_and_grads",
                                            "bf16_optimizer_states"};
const std::vector<std::string> kOptimizerKeys = {"type", "params"};
const std::vector<std::string> kAdamKeys = {"lr", "betas", "eps", "weight_decay", "adam_w_mode", "torch_adam", "bias_correction", "amsgrad"};
const std::vector<std::string> kSchedulerKeys = {"type", "params"};
const std::vector<std::string> kWarmupKeys = {"warmup_min_lr", "warmup_max_lr", "warmup_num_steps", "warmup_type", "total_num_steps",
                                              "last_batch_iteration"};
const std::vector<std::string> kCheckpointKeys = {"tag_validation", "load_universal", "use_node_local_storage", "parallel_write"};

// What runner does with the keys it knows but does not read above (key_policy.h). Neutral
// values are DeepSpeed's defaults, or what runner does anyway.
const std::string kEngineKnob = "a tuning knob of DeepSpeed's own engine; runner buckets, overlaps and gathers its own way";
const std::string kMonitor = "DeepSpeed's own monitoring; runner logs through logging_steps and report_to";
const std::vector<KeyPolicy> kPolicies = {
    {"communication_data_type", {"fp32", "float32", "torch.float32"}, true, "gradients are reduced in fp32"},
    {"seq_parallel_communication_data_type", {"fp32", "float32"}, true, "sequence parallelism is not implemented"},
    {"data_types.grad_accum_dtype", {"fp32", "float32"}, true, "gradients accumulate in fp32"},
    {"torch_autocast.enabled", {false}, true, "use args.bf16 or args.fp16, which run the model under autocast"},
    {"prescale_gradients", {false}, false, "runner's loss weighting already divides by the global item count before the reduction"},
    {"gradient_predivide_factor", {1.0}, false, "runner's loss weighting already divides by the global item count before the reduction"},
    {"gradient_allreduce_op", {}, true, "gradients are always summed over ranks (the loss weighting makes the sum the mean)"},
    {"zero_allow_untested_optimizer", {false}, false, "every runner optimizer is tested under ZeRO"},
    {"zero_force_ds_cpu_optimizer", {true}, false, "offloaded steps use runner's own CPU optimizer"},
    {"sparse_gradients", {false}, true, "sparse gradients are not implemented"},
    {"compile.enabled", {false}, true, "torch.compile does not exist in LibTorch"},
    {"elasticity.enabled", {false}, true, "elastic training is not implemented"},
    {"activation_checkpointing", {}, false, "DeepSpeed's activation checkpointing only acts on models that call deepspeed.checkpointing"},
    {"aio", {}, false, "asynchronous I/O serves NVMe offload, which is not implemented"},
    {"steps_per_print", {10}, false, kMonitor},
    {"wall_clock_breakdown", {false}, false, kMonitor},
    {"dump_state", {false}, false, kMonitor},
    {"memory_breakdown", {false}, false, kMonitor},
    {"flops_profiler.enabled", {false}, false, kMonitor},
    {"tensorboard.enabled", {false}, false, kMonitor},
    {"wandb.enabled", {false}, false, kMonitor},
    {"csv_monitor.enabled", {false}, false, kMonitor},
    {"comet.enabled", {false}, false, kMonitor},
    {"comms_logger.enabled", {false}, false, kMonitor},
    {"checkpoint.tag_validation", {"Warn", "WARN", "warn"}, false, "runner checkpoints carry no DeepSpeed tags"},
    {"checkpoint.load_universal", {false}, true, "universal checkpoints are not implemented (runner checkpoints load on any world size)"},
    {"checkpoint.use_node_local_storage", {false}, true, "use args.save_on_each_node"},
    {"checkpoint.parallel_write", {}, false, "each rank writes its own shard file already"},
    {"fp16.auto_cast", {false}, true, "inputs stay as they are; autocast chooses each op's precision"},
    {"bf16.immediate_grad_update", {true}, true, "gradients accumulate into fp32 at every micro-step (DeepSpeed's immediate_grad_update = true)"},
    {"bf16.check_grad_overflow", {false}, false, "bf16 needs no overflow check; fp16's is always on"},
    {"bf16.bf16_master_weights_and_grads", {false}, true, "runner keeps fp32 master weights and gradients"},
    {"bf16.bf16_optimizer_states", {false}, true, "runner keeps the optimizer state in fp32"},
    {"optimizer.params.torch_adam", {false}, false, "runner's own AdamW kernel runs either way (the same update as torch.optim.AdamW)"},
    {"optimizer.params.bias_correction", {true}, true, "AdamW always corrects its bias"},
    {"optimizer.params.amsgrad", {false}, true, "AMSGrad is not implemented"},
    {"scheduler.params.last_batch_iteration", {-1}, true, "resume from a checkpoint instead"},
    {"zero_optimization.contiguous_gradients", {true}, false, kEngineKnob},
    {"zero_optimization.reduce_scatter", {true}, false, kEngineKnob},
    {"zero_optimization.overlap_comm", {true}, false, kEngineKnob},
    {"zero_optimization.allgather_partitions", {true}, false, kEngineKnob},
    {"zero_optimization.use_multi_rank_bucket_allreduce", {true}, false, kEngineKnob},
    {"zero_optimization.round_robin_gradients", {false}, false, kEngineKnob},
    {"zero_optimization.sub_group_size", {1e9}, false, kEngineKnob},
    {"zero_optimization.stage3_max_reuse_distance", {1e9}, false, kEngineKnob},
    {"zero_optimization.max_reuse_distance", {1e9}, false, kEngineKnob},
    {"zero_optimization.stage3_model_persistence_threshold", {}, false, kEngineKnob},
    {"zero_optimization.model_persistence_threshold", {}, false, kEngineKnob},
    {"zero_optimization.stage3_module_granularity_threshold", {0}, false, kEngineKnob},
    {"zero_optimization.module_granularity_threshold", {0}, false, kEngineKnob},
    {"zero_optimization.stage3_use_all_reduce_for_fetch_params", {false}, false, kEngineKnob},
    {"zero_optimization.use_all_reduce_for_fetch_params", {false}, false, kEngineKnob},
    {"zero_optimization.stage3_allgather_sequential", {false}, false, kEngineKnob},
    {"zero_optimization.allgather_sequential", {false}, false, kEngineKnob},
    {"zero_optimization.memory_efficient_linear", {true}, false, kEngineKnob},
    {"zero_optimization.override_module_apply", {true}, false, kEngineKnob},
    {"zero_optimization.leaf_module", {}, false, kEngineKnob},
    {"zero_optimization.legacy_stage1", {false}, false, kEngineKnob},
    {"zero_optimization.ignore_unused_parameters", {true}, false, "parameters without a gradient are always allowed"},
    {"zero_optimization.elastic_checkpoint", {false}, false, "runner checkpoints load on any world size anyway"},
    {"zero_optimization.load_from_fp32_weights", {true}, false, "runner checkpoints hold the fp32 weights, and resume uses them"},
    {"zero_optimization.log_trace_cache_warnings", {false}, false, kMonitor},
    {"zero_optimization.enable_sanity_checks", {false}, false, kMonitor},
    {"zero_optimization.pipeline_loading_checkpoint", {false}, false, kEngineKnob},
    {"zero_optimization.stage3_gather_16bit_weights_on_model_save", {false}, false, "model.safetensors always holds the consolidated fp32 weights"},
    {"zero_optimization.gather_16bit_weights_on_model_save", {false}, false, "model.safetensors always holds the consolidated fp32 weights"},
    {"zero_optimization.stage3_gather_fp16_weights_on_model_save", {false}, false, "model.safetensors always holds the consolidated fp32 weights"},
    {"zero_optimization.zero_hpz_partition_size", {1}, true, "ZeRO++ hierarchical partitioning is not implemented"},
    {"zero_optimization.zero_quantized_weights", {false}, true, "ZeRO++ quantized weights are not implemented"},
    {"zero_optimization.zero_quantized_nontrainable_weights", {false}, true, "ZeRO++ quantized weights are not implemented"},
    {"zero_optimization.zero_quantized_gradients", {false}, true, "ZeRO++ quantized gradients are not implemented"},
    {"zero_optimization.mics_shard_size", {-1}, true, "MiCS sharding is not implemented"},
    {"zero_optimization.mics_hierarchical_params_gather", {false}, true, "MiCS sharding is not implemented"},
    {"zero_optimization.zenflow", {}, true, "ZenFlow is not implemented"},
    {"zero_optimization.zeropp_loco_param", {}, true, "ZeRO++ LoCo is not implemented"},
};

// The offload blocks' keys (for offload_optimizer and offload_param).
std::vector<KeyPolicy> offload_policies(const std::string& block) {
  const std::string z = "zero_optimization." + block + ".";
  const std::string nvme = "it tunes NVMe offload, which runner does not implement (DeepSpeed ignores it with device \"cpu\" too)";
  return {{z + "ratio", {1.0}, true, "partial offload is not implemented"},
          {z + "super_offload", {false}, true, "SuperOffload is not implemented"},
          {z + "fast_init", {false}, false, kEngineKnob},
          {z + "cpuadam_cores_perc", {}, false, kEngineKnob},
          {z + "nvme_path", {nullptr, "/local_nvme"}, false, nvme},
          {z + "buffer_count", {4, 5}, false, nvme},
          {z + "buffer_size", {1e8}, false, nvme},
          {z + "max_in_cpu", {1e9}, false, nvme},
          {z + "pipeline_read", {false}, false, nvme},
          {z + "pipeline_write", {false}, false, nvme},
          {z + "pipeline", {false}, false, nvme}};
}

class Reader {
 public:
  explicit Reader(std::string where) : where_(std::move(where)) {}

  [[noreturn]] void fail(const std::string& message) const { throw ArgumentError(message, where_); }

  void check_keys(const json& obj, const std::vector<std::string>& known, const std::string& path) const {
    if (!obj.is_object()) fail(path + ": expected an object, got " + obj.dump());
    for (auto it = obj.begin(); it != obj.end(); ++it)
      if (std::find(known.begin(), known.end(), it.key()) == known.end())
        fail("unknown DeepSpeed key '" + (path.empty() ? "" : path + ".") + it.key() + "'" + did_you_mean(it.key(), known));
  }

  // HF fill_match: "auto" takes the TrainingArguments value; anything else must equal it.
  void match(json& obj, const std::string& key, const json& hf, const std::string& path, const std::string& hf_name) {
    if (!obj.contains(key)) return;
    json& v = obj[key];
    if (v == "auto") {
      v = hf;
      return;
    }
    const bool equal = v.is_number() && hf.is_number() ? std::fabs(v.get<double>() - hf.get<double>()) <= 1e-12 * std::fabs(hf.get<double>())
                                                       : v == hf;
    if (!equal) mismatches_.push_back("ds " + path + "=" + v.dump() + " vs hf " + hf_name + "=" + hf.dump());
  }

  void finish_matching() const {
    if (mismatches_.empty()) return;
    std::string m = "DeepSpeed config values contradict TrainingArguments: ";
    for (size_t i = 0; i < mismatches_.size(); ++i) m += (i ? "; " : "") + mismatches_[i];
    fail(m);
  }

  // A number (DeepSpeed writes sizes like 2e8), "auto" meaning `fallback`.
  int64_t count(const json& obj, const std::string& key, int64_t fallback, const std::string& path) const {
    if (!obj.contains(key) || obj[key] == "auto") return fallback;
    const json& v = obj[key];
    if (!v.is_number() || !(v.get<double>() >= 0) || v.get<double>() >= 9.2e18)
      fail(path + "." + key + ": expected a non-negative number, got " + v.dump());
    return static_cast<int64_t>(std::llround(v.get<double>()));
  }

 private:
  std::string where_;
  std::vector<std::string> mismatches_;
};

bool offload_enabled(const json& zero, const std::string& key, Reader& r, const std::string& path) {
  if (!zero.contains(key) || zero[key].is_null()) return false;
  r.check_keys(zero[key], kOffloadKeys, path + "." + key);
  const std::string device = zero[key].value("device", std::string("none"));
  if (device == "none") return false;
  if (device == "cpu") return true;
  r.fail(path + "." + key + ".device: \"" + device + "\" is not supported (\"cpu\" or \"none\"; NVMe offload is not implemented)");
}

}  // namespace

namespace {

// HF's trainer_config_finalize: the size keys left "auto" follow the model's hidden size.
void fill_hidden_size_autos(json& ds, int64_t hidden, const std::string& where, std::vector<std::string>& warnings) {
  if (!ds.contains("zero_optimization") || !ds["zero_optimization"].is_object()) return;
  json& z = ds["zero_optimization"];
  const bool zero3 = z.value("stage", json(0)) == 3;
  const double h = static_cast<double>(hidden);
  std::vector<std::pair<std::string, int64_t>> keys = {{"reduce_bucket_size", static_cast<int64_t>(h * h)}};
  if (zero3) keys.push_back({"stage3_prefetch_bucket_size", static_cast<int64_t>(0.9 * h * h)}), keys.push_back({"stage3_param_persistence_threshold", 10 * hidden});
  std::vector<std::string> autos;
  for (const auto& [key, value] : keys)
    if (z.value(key, json()) == "auto") autos.push_back(key);
  if (autos.empty()) return;
  std::string names;
  for (const auto& k : autos) names += (names.empty() ? "" : ", ") + k;
  if (hidden == 0)
    throw ArgumentError("the model's config has no hidden_size, so the \"auto\" of zero_optimization." + names +
                        " cannot be filled in (HF fills them from it): give numbers", where);
  if (hidden < 0) {
    warnings.push_back("zero_optimization." + names + " = \"auto\" has no effect: the model is built by model_init, so DeepSpeed's "
                       "defaults are used (HF would fill them from its hidden size)");
    return;
  }
  for (const auto& [key, value] : keys)
    if (z.value(key, json()) == "auto") z[key] = value;
}

DeepSpeedSettings read_config(const json& config, const TrainingArguments& args, int world_size, int64_t hidden_size) {
  json ds = config;
  std::string where = "args.deepspeed";
  if (ds.is_string()) {
    const std::string text = ds.get<std::string>();
    if (!text.empty() && text.front() == '{') {
      ds = json::parse(text, nullptr, false);
      if (ds.is_discarded()) throw ArgumentError("args.deepspeed: not valid JSON");
    } else {
      where = text;
      try {
        ds = io::read_json_file(text);
      } catch (const Error& e) {
        throw ArgumentError("cannot read the DeepSpeed config: " + e.message(), text);
      }
    }
  }
  Reader r(where);
  r.check_keys(ds, kTopKeys, "");
  DeepSpeedSettings out;
  fill_hidden_size_autos(ds, hidden_size, where, out.warnings);
  apply_key_policies(ds, kPolicies, "", where, out.warnings);
  for (const char* block : {"offload_optimizer", "offload_param"}) apply_key_policies(ds, offload_policies(block), "", where, out.warnings);

  // Batch triad and clipping (HF trainer_config_process).
  const int64_t B = args.per_device_train_batch_size, GA = args.gradient_accumulation_steps;
  r.match(ds, "train_micro_batch_size_per_gpu", B, "train_micro_batch_size_per_gpu", "per_device_train_batch_size");
  r.match(ds, "gradient_accumulation_steps", GA, "gradient_accumulation_steps", "gradient_accumulation_steps");
  r.match(ds, "train_batch_size", B * GA * world_size, "train_batch_size", "train_batch_size (world_size × per_device_train_batch_size × gradient_accumulation_steps)");
  r.match(ds, "gradient_clipping", args.max_grad_norm, "gradient_clipping", "max_grad_norm");

  // Precision: fp16.enabled and bf16.enabled must agree with the arguments (HF fill_match);
  // whether the device can run fp16 is checked when the device is chosen.
  if (ds.contains("fp16")) {
    json& f = ds["fp16"];
    r.check_keys(f, kFp16Keys, "fp16");
    r.match(f, "enabled", args.fp16 || args.fp16_full_eval, "fp16.enabled", "fp16|fp16_full_eval");
    LossScalerConfig& ls = out.loss_scaler;
    const int64_t power = r.count(f, "initial_scale_power", 16, "fp16");
    if (power > 60) r.fail("fp16.initial_scale_power: " + std::to_string(power) + " is too large (the scale is 2^power)");
    ls.init_scale = std::ldexp(1.0, static_cast<int>(power));
    const json fixed = f.value("loss_scale", json(0));
    if (!fixed.is_number() || fixed.get<double>() < 0) r.fail("fp16.loss_scale: expected 0 (dynamic) or a positive number, got " + fixed.dump());
    if (fixed.get<double>() > 0) ls.init_scale = fixed.get<double>(), ls.dynamic = false;
    ls.growth_interval = r.count(f, "loss_scale_window", ls.growth_interval, "fp16");
    if (ls.growth_interval < 1) r.fail("fp16.loss_scale_window: must be >= 1");
    ls.hysteresis = static_cast<int>(std::max<int64_t>(1, r.count(f, "hysteresis", ls.hysteresis, "fp16")));
    if (f.contains("consecutive_hysteresis")) {
      if (!f["consecutive_hysteresis"].is_boolean()) r.fail("fp16.consecutive_hysteresis: expected true or false");
      ls.consecutive_hysteresis = f["consecutive_hysteresis"].get<bool>();
    }
    if (f.contains("min_loss_scale") && f["min_loss_scale"] != "auto") {
      if (!f["min_loss_scale"].is_number() || f["min_loss_scale"].get<double>() < 0) r.fail("fp16.min_loss_scale: expected a non-negative number");
      ls.min_scale = f["min_loss_scale"].get<double>();
    }
    if (f.value("fp16_master_weights_and_grads", false) == true)
      r.fail("fp16.fp16_master_weights_and_grads: fp16 master weights are not supported (runner keeps fp32 master weights)");
  }
  if (ds.contains("amp")) {
    r.match(ds["amp"], "enabled", false, "amp.enabled", "fp16+half_precision_backend(apex)");
    if (ds["amp"].value("enabled", false) == true) r.fail("amp.enabled: NVIDIA apex AMP is not supported; use the fp16 block");
  }
  for (const char* key : {"bf16", "bfloat16"}) {
    if (!ds.contains(key)) continue;
    r.check_keys(ds[key], kBf16Keys, key);
    r.match(ds[key], "enabled", args.bf16 || args.bf16_full_eval, std::string(key) + ".enabled", "bf16");
  }

  // Optimizer: DeepSpeed's Adam is AdamW unless adam_w_mode is false; the runner's adamw
  // with the same hyperparameters stands in for it.
  if (ds.contains("optimizer")) {
    json& opt = ds["optimizer"];
    r.check_keys(opt, kOptimizerKeys, "optimizer");
    const std::string type = opt.value("type", std::string());
    const std::string lower = to_lower(type);
    if (lower != "adam" && lower != "adamw")
      r.fail("optimizer.type: \"" + type + "\" is not supported with DeepSpeed configs (Adam or AdamW; or drop the block and set args.optim)");
    json& p = opt["params"];
    if (p.is_null()) p = json::object();
    r.check_keys(p, kAdamKeys, "optimizer.params");
    if (p.value("adam_w_mode", true) == false) r.fail("optimizer.params.adam_w_mode: Adam with L2 regularisation is not supported; use AdamW");
    r.match(p, "lr", args.learning_rate, "optimizer.params.lr", "learning_rate");
    r.match(p, "betas", json::array({args.adam_beta1, args.adam_beta2}), "optimizer.params.betas", "adam_beta1/adam_beta2");
    r.match(p, "eps", args.adam_epsilon, "optimizer.params.eps", "adam_epsilon");
    r.match(p, "weight_decay", args.weight_decay, "optimizer.params.weight_decay", "weight_decay");
  }

  // Scheduler: WarmupLR and WarmupDecayLR (DeepSpeed's lr_schedules formulas).
  if (ds.contains("scheduler")) {
    json& sch = ds["scheduler"];
    r.check_keys(sch, kSchedulerKeys, "scheduler");
    const std::string type = sch.value("type", std::string());
    if (type != "WarmupLR" && type != "WarmupDecayLR")
      r.fail("scheduler.type: \"" + type + "\" is not supported (WarmupLR or WarmupDecayLR; or drop the block and set args.lr_scheduler_type)");
    json& p = sch["params"];
    if (p.is_null()) p = json::object();
    r.check_keys(p, kWarmupKeys, "scheduler.params");
    r.match(p, "warmup_max_lr", args.learning_rate, "scheduler.params.warmup_max_lr", "learning_rate");
    if (p.contains("warmup_min_lr") && p["warmup_min_lr"] != "auto" && !p["warmup_min_lr"].is_number())
      r.fail("scheduler.params.warmup_min_lr: expected a number, got " + p["warmup_min_lr"].dump());
    const double min_lr = p.contains("warmup_min_lr") && p["warmup_min_lr"] != "auto" ? p["warmup_min_lr"].get<double>() : 0.0;
    const std::string warmup_type = p.value("warmup_type", std::string("log"));
    if (warmup_type != "log" && warmup_type != "linear") r.fail("scheduler.params.warmup_type: \"" + warmup_type + "\" (log or linear)");
    // Read now (-1 = "auto"), so a wrong type fails before training, not at the first step.
    const int64_t warmup_cfg = r.count(p, "warmup_num_steps", -1, "scheduler.params");
    const int64_t total_cfg = r.count(p, "total_num_steps", -1, "scheduler.params");
    const bool decay = type == "WarmupDecayLR";
    const double base = args.learning_rate;
    const TrainingArguments args_copy = args;
    out.lr_factor = [=](int64_t step, int64_t max_steps) {
      const int64_t warm = std::max<int64_t>(2, warmup_cfg < 0 ? args_copy.warmup_steps_for(max_steps) : warmup_cfg);
      const int64_t total = total_cfg < 0 ? max_steps : total_cfg;
      double gamma = 1.0;
      if (step < warm)
        gamma = warmup_type == "log" ? std::log(static_cast<double>(step + 1)) / std::log(static_cast<double>(warm))
                                     : static_cast<double>(step) / static_cast<double>(warm);
      const double lr = min_lr + (base - min_lr) * gamma;
      if (decay && step >= warm) return lr / base * std::max(0.0, static_cast<double>(total - step) / std::max<double>(1.0, total - warm));
      return lr / base;
    };
  }
  r.finish_matching();

  if (ds.contains("checkpoint")) r.check_keys(ds["checkpoint"], kCheckpointKeys, "checkpoint");
  if (ds.contains("zero_optimization")) {
    const json& z = ds["zero_optimization"];
    r.check_keys(z, kZeroKeys, "zero_optimization");
    const int64_t stage = r.count(z, "stage", 0, "zero_optimization");
    if (stage > 3) r.fail("zero_optimization.stage: " + std::to_string(stage) + " (0, 1, 2 or 3)");
    out.stage = static_cast<int>(stage);
    out.reduce_bucket_size = r.count(z, "reduce_bucket_size", out.reduce_bucket_size, "zero_optimization");
    out.allgather_bucket_size = r.count(z, "allgather_bucket_size", out.allgather_bucket_size, "zero_optimization");
    for (const char* k : {"stage3_param_persistence_threshold", "param_persistence_threshold"})
      out.zero3.persistence_threshold = r.count(z, k, out.zero3.persistence_threshold, "zero_optimization");
    for (const char* k : {"stage3_prefetch_bucket_size", "prefetch_bucket_size"})
      out.zero3.prefetch_forward = out.zero3.prefetch_backward = r.count(z, k, out.zero3.prefetch_forward, "zero_optimization");
    for (const char* k : {"stage3_max_live_parameters", "max_live_parameters"})
      out.zero3.max_live_parameters = r.count(z, k, out.zero3.max_live_parameters, "zero_optimization");
    out.offload_optimizer = offload_enabled(z, "offload_optimizer", r, "zero_optimization");
    out.zero3.offload = offload_enabled(z, "offload_param", r, "zero_optimization");
    auto pinned = [&](const char* block) {
      const json b = z.value(block, json::object());
      const json v = b.is_object() ? b.value("pin_memory", json(false)) : json(false);
      if (!v.is_boolean()) r.fail(std::string("zero_optimization.") + block + ".pin_memory: expected true or false, got " + v.dump());
      return v.get<bool>();
    };
    const json legacy_pin = z.value("cpu_offload_use_pin_memory", json(false));
    if (!legacy_pin.is_boolean()) r.fail("zero_optimization.cpu_offload_use_pin_memory: expected true or false, got " + legacy_pin.dump());
    out.pin_optimizer_offload = pinned("offload_optimizer") || legacy_pin.get<bool>();
    out.zero3.pin_offload = pinned("offload_param") || legacy_pin.get<bool>();
    // DeepSpeed's legacy spellings of the offload blocks, still accepted by DeepSpeed.
    for (const auto& [legacy, modern] : {std::pair<const char*, const char*>{"cpu_offload", "offload_optimizer"}, {"cpu_offload_param", "offload_param"}}) {
      if (!z.contains(legacy) || z[legacy].is_null()) continue;
      if (!z[legacy].is_boolean()) r.fail(std::string("zero_optimization.") + legacy + ": expected true or false, got " + z[legacy].dump());
      if (!z[legacy].get<bool>()) continue;
      if (z.contains(modern)) r.fail(std::string("zero_optimization.") + legacy + " and " + modern + " are both set; keep " + modern);
      out.warnings.push_back(std::string("zero_optimization.") + legacy + " is deprecated; use " + modern + ": {\"device\": \"cpu\"}");
      (std::string(modern) == "offload_param" ? out.zero3.offload : out.offload_optimizer) = true;
    }
    if (out.zero3.offload && out.stage != 3) r.fail("zero_optimization.offload_param: only valid with stage 3");
  }
  out.resolved = ds;
  return out;
}

}  // namespace

DeepSpeedSettings read_deepspeed_config(const json& config, const TrainingArguments& args, int world_size, int64_t hidden_size) {
  try {
    return read_config(config, args, world_size, hidden_size);
  } catch (const nlohmann::json::exception& e) {  // a value of the wrong type the checks above do not name
    const std::string where = config.is_string() && !config.get<std::string>().empty() && config.get<std::string>().front() != '{'
                                  ? config.get<std::string>()
                                  : "args.deepspeed";
    throw ArgumentError(std::string("a value has the wrong type: ") + e.what(), where);
  }
}

LossScalerConfig resolve_loss_scaler(const TrainingArguments& args, int world_size) {
  const bool has_ds = !args.deepspeed.is_null() && !(args.deepspeed.is_string() && args.deepspeed.get<std::string>().empty());
  return has_ds ? read_deepspeed_config(args.deepspeed, args, world_size).loss_scaler : LossScalerConfig{};
}

}  // namespace runner::config
