#include "runtime/config/accelerate_config.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>

#include <yaml-cpp/yaml.h>

#include "runtime/core/did_you_mean.h"
#include "runtime/core/errors.h"

namespace runner::config {

using nlohmann::json;

namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Plain scalars are typed as PyYAML's safe_load (what accelerate uses) types them:
// true/false/yes/no/on/off, null/~, integers, floats; quoted scalars stay strings.
json to_json(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null: return nullptr;
    case YAML::NodeType::Sequence: {
      json out = json::array();
      for (const auto& item : n) out.push_back(to_json(item));
      return out;
    }
    case YAML::NodeType::Map: {
      json out = json::object();
      for (const auto& kv : n) out[kv.first.Scalar()] = to_json(kv.second);
      return out;
    }
    case YAML::NodeType::Scalar: break;
  }
  const std::string& s = n.Scalar();
  if (n.Tag() == "!") return s;
  const std::string l = lower(s);
  if (l == "true" || l == "yes" || l == "on") return true;
  if (l == "false" || l == "no" || l == "off") return false;
  if (l == "null" || l == "~" || l.empty()) return nullptr;
  try {
    size_t used = 0;
    const long long i = std::stoll(s, &used);
    if (used == s.size()) return i;
    const double d = std::stod(s, &used);
    if (used == s.size()) return d;
  } catch (const std::exception&) {
  }
  return s;
}

struct Reader {
  std::string path;
  AccelerateConfig* out;

  [[noreturn]] void fail(const std::string& key, const std::string& message) const {
    throw ArgumentError(key + ": " + message, path);
  }
  std::string text(const json& v, const std::string& key) const {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_boolean()) return v.get<bool>() ? "true" : "false";  // unquoted no/yes
    if (v.is_number()) return v.dump();
    fail(key, "expected a string, got " + v.dump());
  }
  bool flag(const json& v, const std::string& key) const {
    if (v.is_boolean()) return v.get<bool>();
    if (v.is_string() && (lower(v.get<std::string>()) == "true" || lower(v.get<std::string>()) == "false")) return lower(v.get<std::string>()) == "true";
    fail(key, "expected true or false, got " + v.dump());
  }
  int64_t integer(const json& v, const std::string& key) const {
    if (v.is_number_integer()) return v.get<int64_t>();
    if (v.is_string()) {
      try {
        size_t used = 0;
        const long long i = std::stoll(v.get<std::string>(), &used);
        if (used == v.get<std::string>().size()) return i;
      } catch (const std::exception&) {
      }
    }
    fail(key, "expected an integer, got " + v.dump());
  }
  void no_effect(const std::string& key, const std::string& why) { out->warnings.push_back(path + ": " + key + " has no effect in runner: " + why); }

  json deepspeed(const json& block) {
    if (!block.is_object()) fail("deepspeed_config", "expected a mapping");
    if (block.contains("deepspeed_config_file") && !block["deepspeed_config_file"].is_null()) {
      // A DeepSpeed JSON file: runner reads it as args.deepspeed (relative to the YAML file
      // when it is there, else as given, as accelerate does from the working directory).
      std::string file = text(block["deepspeed_config_file"], "deepspeed_config.deepspeed_config_file");
      const auto beside = std::filesystem::path(path).parent_path() / file;
      if (!std::filesystem::path(file).is_absolute() && std::filesystem::exists(beside)) file = beside.string();
      for (auto it = block.begin(); it != block.end(); ++it)
        if (it.key() != "deepspeed_config_file" && it.key() != "deepspeed_multinode_launcher" && it.key() != "zero3_init_flag" && !it->is_null())
          fail("deepspeed_config." + it.key(), "set it in " + file + " (accelerate ignores it next to deepspeed_config_file too)");
      return file;
    }
    json ds = json::object();
    json zero = json::object();
    static const std::vector<std::string> keys = {
        "zero_stage", "gradient_accumulation_steps", "gradient_clipping", "offload_optimizer_device", "offload_param_device",
        "offload_optimizer_nvme_path", "offload_param_nvme_path", "zero3_init_flag", "zero3_save_16bit_model", "deepspeed_config_file",
        "deepspeed_multinode_launcher", "deepspeed_hostfile", "deepspeed_exclusion_filter", "deepspeed_inclusion_filter",
        "deepspeed_moe_layer_cls_names"};
    for (auto it = block.begin(); it != block.end(); ++it) {
      const std::string key = "deepspeed_config." + it.key();
      const json& v = *it;
      if (std::find(keys.begin(), keys.end(), it.key()) == keys.end()) fail(key, "unknown key" + did_you_mean(it.key(), keys));
      if (v.is_null()) continue;
      if (it.key() == "zero_stage") zero["stage"] = integer(v, key);
      else if (it.key() == "gradient_accumulation_steps") ds["gradient_accumulation_steps"] = integer(v, key);
      else if (it.key() == "gradient_clipping") {
        if (!v.is_number()) fail(key, "expected a number, got " + v.dump());
        ds["gradient_clipping"] = v;
      } else if (it.key() == "offload_optimizer_device" || it.key() == "offload_param_device") {
        const std::string d = lower(text(v, key));
        if (d == "none") continue;
        if (d != "cpu") fail(key, "\"" + d + "\": runner offloads to the CPU only (none or cpu)");
        zero[it.key() == "offload_optimizer_device" ? "offload_optimizer" : "offload_param"] = {{"device", "cpu"}};
      } else if (it.key() == "zero3_save_16bit_model") {
        zero["stage3_gather_16bit_weights_on_model_save"] = flag(v, key);
      } else if (it.key() == "zero3_init_flag") {
        if (flag(v, key))
          no_effect(key, "a models.from_pretrained model already reads only each rank's shards from its files under ZeRO-3; "
                         "a model the recipe builds is built whole on every rank, then sharded");
      } else if (it.key() == "deepspeed_multinode_launcher" || it.key() == "deepspeed_hostfile" ||
                 it.key() == "deepspeed_exclusion_filter" || it.key() == "deepspeed_inclusion_filter") {
        no_effect(key, "mpiexec or srun starts the ranks");
      } else if (it.key() == "deepspeed_moe_layer_cls_names") {
        fail(key, "mixture-of-experts layers are not supported");
      } else {  // the NVMe paths
        fail(key, "NVMe offload is not supported (offload to the CPU)");
      }
    }
    if (!zero.empty()) ds["zero_optimization"] = zero;
    return ds;
  }

  void fsdp(const json& block) {
    if (!block.is_object()) fail("fsdp_config", "expected a mapping");
    json cfg = json::object();
    for (auto it = block.begin(); it != block.end(); ++it) {
      std::string key = it.key();
      if (key.rfind("fsdp_", 0) == 0) key = key.substr(5);
      if (key == "backward_prefetch_policy") key = "backward_prefetch";  // accelerate's older name
      if (!it->is_null()) cfg[key] = *it;
    }
    // The strategy, offload and wrapping become args.fsdp's words; the block stays the
    // fsdp_config (its keys are checked there, as for HF's fsdp_config).
    std::string strategy = "full_shard";
    if (cfg.contains("sharding_strategy")) {
      static const std::vector<std::string> names = {"full_shard", "shard_grad_op", "no_shard", "hybrid_shard", "hybrid_shard_zero2"};
      const json& s = cfg["sharding_strategy"];
      if (s.is_number_integer() && s.get<int>() >= 1 && s.get<int>() <= 5) strategy = names[s.get<int>() - 1];
      else strategy = lower(text(s, "fsdp_config.fsdp_sharding_strategy"));
    } else if (cfg.contains("reshard_after_forward") && cfg["reshard_after_forward"].is_boolean()) {
      strategy = cfg["reshard_after_forward"].get<bool>() ? "full_shard" : "shard_grad_op";  // FSDP2's spelling
    }
    std::string words = strategy;
    if (cfg.contains("offload_params") && flag(cfg["offload_params"], "fsdp_config.fsdp_offload_params")) words += " offload";
    if (cfg.contains("auto_wrap_policy") && text(cfg["auto_wrap_policy"], "fsdp_config.fsdp_auto_wrap_policy") != "NO_WRAP") words += " auto_wrap";
    out->args["fsdp"] = words;
    out->args["fsdp_config"] = cfg;
  }
};

}  // namespace

AccelerateConfig read_accelerate_config(const std::string& path) {
  AccelerateConfig c;
  c.path = path;
  if (!std::filesystem::is_regular_file(path)) throw ArgumentError("--accelerate_config: no such file", path);
  json doc;
  try {
    doc = to_json(YAML::LoadFile(path));
  } catch (const YAML::Exception& e) {
    throw ArgumentError(e.msg, path + ":" + std::to_string(e.mark.line + 1));
  }
  if (!doc.is_object()) throw ArgumentError("expected a mapping of accelerate settings (what `accelerate config` writes)", path);
  Reader r{path, &c};
  // accelerate's ClusterConfig fields; anything else is refused, as accelerate refuses it.
  static const std::vector<std::string> known = {
      "compute_environment", "distributed_type", "mixed_precision", "use_cpu", "debug", "num_processes", "machine_rank",
      "num_machines", "gpu_ids", "main_process_ip", "main_process_port", "rdzv_backend", "same_network",
      "main_training_function", "enable_cpu_affinity", "fp8_config", "deepspeed_config", "fsdp_config", "parallelism_config",
      "megatron_lm_config", "mpirun_config", "downcast_bf16", "tpu_name", "tpu_zone", "tpu_use_cluster", "tpu_use_sudo",
      "command_file", "commands", "tpu_vm", "tpu_env", "dynamo_config"};
  for (auto it = doc.begin(); it != doc.end(); ++it)
    if (std::find(known.begin(), known.end(), it.key()) == known.end())
      r.fail(it.key(), "unknown accelerate setting" + did_you_mean(it.key(), known));
  auto get = [&](const char* k) -> json { return doc.contains(k) ? doc[k] : json(); };
  auto empty = [](const json& v) { return v.is_null() || (v.is_object() && v.empty()) || (v.is_array() && v.empty()); };

  if (!get("compute_environment").is_null() && r.text(get("compute_environment"), "compute_environment") != "LOCAL_MACHINE")
    r.fail("compute_environment", "\"" + r.text(get("compute_environment"), "compute_environment") + "\": runner runs on LOCAL_MACHINE (and clusters through mpiexec / srun)");
  const std::string type = get("distributed_type").is_null() ? "NO" : r.text(get("distributed_type"), "distributed_type");
  if (type != "NO" && type != "MULTI_GPU" && type != "MULTI_CPU" && type != "DEEPSPEED" && type != "FSDP")
    r.fail("distributed_type", "\"" + type + "\": runner trains on CUDA GPUs or CPUs (NO, MULTI_GPU, MULTI_CPU, DEEPSPEED or FSDP)");

  const json mp = get("mixed_precision");
  if (!mp.is_null()) {
    const std::string m = mp.is_boolean() && !mp.get<bool>() ? "no" : lower(r.text(mp, "mixed_precision"));
    if (m == "bf16" || m == "fp16") c.args[m] = true;
    else if (m != "no") r.fail("mixed_precision", "\"" + m + "\": runner has no, fp16 and bf16 (fp8 is not supported)");
  }
  if (!get("use_cpu").is_null() && r.flag(get("use_cpu"), "use_cpu")) c.args["use_cpu"] = true;
  if (!get("num_processes").is_null()) c.num_processes = static_cast<int>(r.integer(get("num_processes"), "num_processes"));
  if (!get("num_machines").is_null()) c.num_machines = static_cast<int>(r.integer(get("num_machines"), "num_machines"));
  if (c.num_processes && *c.num_processes < 1) r.fail("num_processes", "must be >= 1");

  if (type == "DEEPSPEED") {
    if (empty(get("deepspeed_config"))) r.fail("deepspeed_config", "distributed_type DEEPSPEED needs a deepspeed_config block");
    c.args["deepspeed"] = r.deepspeed(get("deepspeed_config"));
  } else if (!empty(get("deepspeed_config"))) {
    c.warnings.push_back(path + ": deepspeed_config is ignored unless distributed_type is DEEPSPEED (as in accelerate)");
  }
  if (type == "FSDP") {
    if (empty(get("fsdp_config"))) r.fail("fsdp_config", "distributed_type FSDP needs an fsdp_config block");
    r.fsdp(get("fsdp_config"));
  } else if (!empty(get("fsdp_config"))) {
    c.warnings.push_back(path + ": fsdp_config is ignored unless distributed_type is FSDP (as in accelerate)");
  }
  for (const char* k : {"fp8_config", "megatron_lm_config", "parallelism_config"})
    if (!empty(get(k))) r.fail(k, "not supported by runner");
  if (!get("debug").is_null() && r.flag(get("debug"), "debug")) r.no_effect("debug", "collectives are always checked by the ddp_timeout watchdog");
  if (!get("gpu_ids").is_null() && r.text(get("gpu_ids"), "gpu_ids") != "all")
    r.no_effect("gpu_ids", "choose GPUs with CUDA_VISIBLE_DEVICES (each rank takes cuda:<local rank>)");
  if (!get("enable_cpu_affinity").is_null() && r.flag(get("enable_cpu_affinity"), "enable_cpu_affinity"))
    r.no_effect("enable_cpu_affinity", "bind ranks with mpiexec's own options (e.g. -bind-to core)");
  const json dynamo = get("dynamo_config");
  if (dynamo.is_object() && dynamo.contains("dynamo_backend") && lower(r.text(dynamo["dynamo_backend"], "dynamo_config.dynamo_backend")) != "no")
    r.no_effect("dynamo_config", "there is no torch.compile in a C++ runner (its kernels are compiled ahead of time)");
  if (!get("downcast_bf16").is_null() && get("downcast_bf16") != json("no") && get("downcast_bf16") != json(false))
    r.no_effect("downcast_bf16", "a TPU setting");
  // The launcher's own keys: accelerate launch reads them, mpiexec / srun do that job here.
  // Values accelerate writes by default pass; any other has no effect on the run and says so.
  const std::vector<std::pair<const char*, std::vector<json>>> launcher = {
      {"machine_rank", {0}}, {"main_process_ip", {nullptr}}, {"main_process_port", {nullptr}}, {"rdzv_backend", {"static"}},
      {"same_network", {true}}, {"main_training_function", {"main"}}, {"mpirun_config", {json::object()}},
      {"tpu_name", {nullptr}}, {"tpu_zone", {nullptr}}, {"tpu_use_cluster", {false}}, {"tpu_use_sudo", {false}},
      {"tpu_vm", {nullptr, json::array()}}, {"tpu_env", {json::array()}}, {"command_file", {nullptr}}, {"commands", {nullptr}}};
  for (const auto& [key, neutral] : launcher) {
    const json v = get(key);
    if (v.is_null() || std::find(neutral.begin(), neutral.end(), v) != neutral.end()) continue;
    r.no_effect(key, std::string(key).rfind("tpu_", 0) == 0 || std::string(key).rfind("command", 0) == 0
                         ? "a TPU pod launcher setting"
                         : "a setting of accelerate's launcher: mpiexec or srun start the ranks and MPI connects them");
  }
  return c;
}

std::string apply_accelerate_config(const AccelerateConfig& c, TrainingArguments& args) {
  const json defaults = TrainingArguments{}.to_json();
  const json current = args.to_json();
  std::string taken;
  for (auto it = c.args.begin(); it != c.args.end(); ++it) {
    const std::string& name = it.key();
    const json& now = current.at(name);
    json wanted = *it;
    if (now == defaults.at(name)) {
      args.set(name, wanted);
      taken += (taken.empty() ? "" : ", ") + name + " = " + (wanted.is_string() ? wanted.get<std::string>() : wanted.dump());
    } else if (now != wanted) {
      throw ArgumentError("accelerate config sets " + name + " = " + wanted.dump() + " but the recipe or command line has " + now.dump() +
                          " (remove one)", c.path);
    }
  }
  // fp16 in the file and bf16 in the recipe (or the reverse) would both end up set.
  if (args.fp16 && args.bf16) throw ArgumentError("mixed_precision contradicts the recipe's precision (fp16 and bf16 both set)", c.path);
  return "accelerate config " + c.path + ": " + (taken.empty() ? "nothing to fill in" : taken);
}

}  // namespace runner::config
