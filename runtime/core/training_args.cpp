#include "runtime/core/training_args.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>

#include "runtime/core/did_you_mean.h"
#include "runtime/core/v4_arguments.h"
#include "runtime/core/errors.h"
#include "runtime/core/step_range.h"
#include "runtime/core/text.h"

namespace runner {

using nlohmann::json;

namespace {

std::string show(const json& v) { return v.dump(); }

[[noreturn]] void type_error(const char* key, const char* expected, const json& got) {
  throw ArgumentError(std::string("args.") + key + ": expected " + expected + ", got " + show(got));
}

// JSON → field type. Lua numbers arrive as doubles, so integers are accepted when integral.
template <class T>
T convert(const json& v, const char* key);

template <>
bool convert<bool>(const json& v, const char* key) {
  if (!v.is_boolean()) type_error(key, "true or false", v);
  return v.get<bool>();
}
// Doubles as the user wrote them: nlohmann dumps inf and nan as null.
std::string number_text(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  return json(d).dump();
}

template <>
int64_t convert<int64_t>(const json& v, const char* key) {
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (d != std::floor(d)) type_error(key, "an integer", v);
    // Beyond int64 (1e30, inf) the cast would be undefined.
    if (!(std::fabs(d) < 9.2e18))
      throw ArgumentError(std::string("args.") + key + ": " + number_text(d) + " is out of range (an integer below 9.2e18 in magnitude)");
    return static_cast<int64_t>(d);
  }
  type_error(key, "an integer", v);
}
template <>
double convert<double>(const json& v, const char* key) {
  if (!v.is_number()) type_error(key, "a number", v);
  if (!std::isfinite(v.get<double>())) throw ArgumentError(std::string("args.") + key + ": expected a finite number, got " + number_text(v.get<double>()));
  return v.get<double>();
}
template <>
std::string convert<std::string>(const json& v, const char* key) {
  if (!v.is_string()) type_error(key, "a string", v);
  return v.get<std::string>();
}
template <>
json convert<json>(const json& v, const char*) { return v; }
template <>
std::optional<bool> convert<std::optional<bool>>(const json& v, const char* key) {
  if (v.is_null()) return std::nullopt;
  return convert<bool>(v, key);
}
template <>
std::optional<int64_t> convert<std::optional<int64_t>>(const json& v, const char* key) {
  if (v.is_null()) return std::nullopt;
  return convert<int64_t>(v, key);
}
template <>
std::optional<double> convert<std::optional<double>>(const json& v, const char* key) {
  if (v.is_null()) return std::nullopt;
  return convert<double>(v, key);
}
template <>
std::optional<std::string> convert<std::optional<std::string>>(const json& v, const char* key) {
  if (v.is_null()) return std::nullopt;
  return convert<std::string>(v, key);
}

// Field type → JSON (for to_json and for comparing against the default).
template <class T>
json to_json_value(const T& v) { return json(v); }
template <class T>
json to_json_value(const std::optional<T>& v) { return v ? json(*v) : json(nullptr); }

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, sep);) out.push_back(item);
  return out;
}

void check_choice(const char* key, const char* choices, const std::string& value) {
  if (!*choices) return;
  auto options = split(choices, '|');
  if (std::find(options.begin(), options.end(), value) != options.end()) return;
  std::string list;
  for (const auto& o : options) list += (list.empty() ? "" : ", ") + o;
  throw ArgumentError(std::string("args.") + key + ": unknown \"" + value + "\"" + did_you_mean(value, options) +
                      " (expected one of " + list + ")");
}
void check_choice(const char* key, const char* choices, const std::optional<std::string>& v) {
  if (v) check_choice(key, choices, *v);
}
template <class T>
void check_choice(const char*, const char*, const T&) {}

// Command-line text → JSON, guided by the field's type.
json parse_text(const ArgField& f, const std::string& text) {
  const std::string type = f.type;
  const std::string t = to_lower(text);
  if (type.rfind("Opt", 0) == 0 && (t == "none" || t == "null")) return nullptr;
  if (type == "Bool" || type == "OptBool") {
    if (t == "true" || t == "1" || t == "yes") return true;
    if (t == "false" || t == "0" || t == "no") return false;
    throw ArgumentError(std::string("--") + f.name + ": expected true or false, got \"" + text + "\"");
  }
  if (type == "Int" || type == "OptInt" || type == "Float" || type == "OptFloat") {
    char* end = nullptr;
    double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0')
      throw ArgumentError(std::string("--") + f.name + ": expected a number, got \"" + text + "\"");
    if ((type == "Int" || type == "OptInt") && v == std::floor(v) && std::fabs(v) < 9.2e18) return static_cast<int64_t>(v);
    return v;
  }
  if (type == "Json") {
    // JSON when it parses ({"a":1}, [..], true, 3), else the plain text ("none", a path).
    json parsed = json::parse(text, nullptr, /*allow_exceptions=*/false);
    return parsed.is_discarded() ? json(text) : parsed;
  }
  return text;
}

std::vector<std::string> all_names() {
  std::vector<std::string> names;
  for (const auto& f : arg_fields()) {
    names.push_back(f.name);
    if (*f.aliases) names.push_back(f.aliases);
  }
  return names;
}

bool is_integral(double v) { return v == std::floor(v); }

json read_json_argument_file(const std::string& path, const std::string& name) {
  std::ifstream in(path);
  if (!in) throw ArgumentError("args." + name + ": cannot open \"" + path + "\"");
  json j = json::parse(in, nullptr, false);
  if (j.is_discarded()) throw ArgumentError("args." + name + ": not valid JSON", path);
  return j;
}

// Accelerate's AcceleratorConfig: each key does what Accelerate does, warns that it cannot
// change results here, or is refused.
void check_accelerator_config(json& config, std::vector<std::string>& warnings) {
  if (config.is_null()) return;
  if (config.is_string()) {
    const std::string text = config.get<std::string>();
    if (text.empty()) return;
    config = text.front() == '{' ? json::parse(text, nullptr, false) : read_json_argument_file(text, "accelerator_config");
    if (config.is_discarded()) throw ArgumentError("args.accelerator_config: not valid JSON");
  }
  if (!config.is_object()) throw ArgumentError("args.accelerator_config: expected a table, got " + config.dump());
  static const std::vector<std::string> known = {"split_batches", "dispatch_batches", "even_batches", "use_seedable_sampler",
                                                 "non_blocking", "gradient_accumulation_kwargs", "use_configured_state"};
  for (auto it = config.begin(); it != config.end(); ++it) {
    const std::string& k = it.key();
    const json& v = it.value();
    if (std::find(known.begin(), known.end(), k) == known.end())
      throw ArgumentError("args.accelerator_config: unknown key '" + k + "'" + did_you_mean(k, known));
    const std::string where = "args.accelerator_config." + k;
    if (k == "gradient_accumulation_kwargs") {
      if (!v.is_null() && !(v.is_object() && v.empty()))
        throw ArgumentError(where + ": not supported: gradient accumulation follows gradient_accumulation_steps and the epoch's end");
      continue;
    }
    if (!v.is_boolean() && !v.is_null()) throw ArgumentError(where + ": expected true or false, got " + v.dump());
    const bool on = v.is_boolean() && v.get<bool>();
    if (k == "split_batches" && on)
      throw ArgumentError(where + ": not supported: per_device_train_batch_size is per rank (split_batches = false)");
    if (k == "even_batches" && v == false)
      throw ArgumentError(where + ": not supported: evaluation pads ranks to even batches and drops the padding (even_batches = true)");
    if (k == "use_seedable_sampler" && v == false)
      throw ArgumentError(where + ": not supported: runner's samplers are always seeded from (data_seed, epoch)");
    if ((k == "dispatch_batches" && on) || (k == "non_blocking" && on) || (k == "use_configured_state" && on))
      warnings.push_back(where + " has no effect: " +
                         (k == "dispatch_batches" ? std::string("every rank loads its own batches (results are the same)")
                          : k == "non_blocking"   ? std::string("copies to the GPU are already non-blocking from pinned memory")
                                                  : std::string("runner has no Accelerate state to reuse")));
  }
}

}  // namespace

const std::vector<ArgField>& arg_fields() {
  static const std::vector<ArgField> fields = [] {
    std::vector<ArgField> v;
    const TrainingArguments defaults;
#define ARG(name, type, def, choices, aliases, support, help) \
  v.push_back({#name, #type, choices, aliases, support, help, to_json_value(defaults.name)});
#include "runtime/core/training_args.def"
#undef ARG
    return v;
  }();
  return fields;
}

const ArgField* find_arg_field(const std::string& name) {
  for (const auto& f : arg_fields())
    if (name == f.name || (*f.aliases && name == f.aliases)) return &f;
  return nullptr;
}


void TrainingArguments::set(const std::string& key, const json& value) {
  if (const V4Argument* old = find_v4_argument(key)) {
    const std::string now = old->now;
    if (now.empty()) {
      if (*old->v4_default && value == json::parse(old->v4_default)) {  // a v4 config's untouched field
        v4_warnings.push_back(key + " is a transformers v4 argument removed in v5; at its default it has no effect");
        return;
      }
      throw ArgumentError("args." + key + ": a transformers v4 argument without a v5 counterpart: " + old->why);
    }
    v4_warnings.push_back(key + " is a transformers v4 name (deprecated, removed in v5); use " + now +
                          (key == "adafactor" ? " = \"adafactor\"" : ""));
    if (now.rfind("fsdp_config.", 0) == 0) {
      v4_fsdp_config[now.substr(12)] = value;
      return;
    }
    if (key == "include_inputs_for_metrics") {  // v4.34's bool: true = ["inputs"]
      if (!value.is_boolean()) throw ArgumentError("args.include_inputs_for_metrics: expected true or false, got " + value.dump());
      if (value.get<bool>() && std::find(include_for_metrics.begin(), include_for_metrics.end(), "inputs") == include_for_metrics.end())
        include_for_metrics.push_back("inputs");
      return;
    }
    if (key == "dispatch_batches") {  // now a key of accelerator_config
      json config = accelerator_config.is_object() ? accelerator_config : json::object();
      config["dispatch_batches"] = value;
      return set("accelerator_config", config);
    }
    if (key == "adafactor") {
      if (!value.is_boolean()) throw ArgumentError("args.adafactor: expected true or false, got " + value.dump());
      if (value.get<bool>()) optim = "adafactor";
      return;
    }
    return set(now, value);
  }
  const ArgField* field = find_arg_field(key);
  if (!field) throw ArgumentError("args." + key + ": unknown argument" + did_you_mean(key, all_names()));
  const std::string canonical = field->name;
  json v = value;
  // HF v5 coerces the old boolean form of include_num_input_tokens_seen.
  if (canonical == "include_num_input_tokens_seen" && v.is_boolean()) v = v.get<bool>() ? "all" : "no";
#define ARG(name, type, def, choices, aliases, support, help)  \
  if (canonical == #name) {                                  \
    auto converted = convert<argtype::type>(v, #name);       \
    check_choice(#name, choices, converted);                 \
    name = std::move(converted);                             \
    return;                                                  \
  }
#include "runtime/core/training_args.def"
#undef ARG
}

void TrainingArguments::set_from_string(const std::string& key, const std::string& text) {
  if (const V4Argument* old = find_v4_argument(key)) {  // parsed as the argument the value moves to
    const std::string now = old->now;
    const ArgField* target = key == "adafactor" ? find_arg_field("use_cpu")  // a Bool
                             : now.rfind("fsdp_config.", 0) == 0 ? find_arg_field("fsdp_config")  // Json
                                                                 : find_arg_field(now);
    return set(key, target ? parse_text(*target, text) : json(text));
  }
  const ArgField* field = find_arg_field(key);
  if (!field) throw ArgumentError("--" + key + ": unknown argument" + did_you_mean(key, all_names()));
  set(key, parse_text(*field, text));
}

void TrainingArguments::update(const json& object) {
  if (!object.is_object()) throw ArgumentError("args: expected a table of argument names to values");
  check_one_name_per_argument(object);  // which of two names won would depend on the table's order
  for (auto it = object.begin(); it != object.end(); ++it) set(it.key(), it.value());
}

json TrainingArguments::to_json() const {
  json out = json::object();
#define ARG(name, type, def, choices, aliases, support, help) out[#name] = to_json_value(name);
#include "runtime/core/training_args.def"
#undef ARG
  if (!out["hub_token"].is_null()) out["hub_token"] = "<HUB_TOKEN>";
  return out;
}

TrainingArguments TrainingArguments::from_json(const json& object) {
  TrainingArguments args;
  args.update(object);
  return args;
}

int64_t TrainingArguments::warmup_steps_for(int64_t total_steps) const {
  if (warmup_steps >= 1) return static_cast<int64_t>(warmup_steps);
  return static_cast<int64_t>(std::ceil(static_cast<double>(total_steps) * warmup_steps));
}

std::vector<std::string> TrainingArguments::label_field_names() const {
  if (label_names.is_null()) return {"labels"};
  std::vector<std::string> names;
  for (const auto& n : label_names) names.push_back(n.get<std::string>());
  return names;
}

std::vector<std::string> TrainingArguments::finalize() {
  std::vector<std::string> warnings;
  auto fail = [](const std::string& m) { throw ArgumentError(m); };

  // Fields runner accepts for compatibility but does not implement: only their default,
  // or, where results cannot change, a warning that the value has no effect.
  const json current = to_json();
  for (const auto& f : arg_fields()) {
    if (!*f.support) continue;
    json value = current[f.name];
    if (std::string(f.name) == "hub_token") value = hub_token ? json("<set>") : json(nullptr);
    if (value == f.default_value) continue;
    const std::string support = f.support;
    if (support.rfind("noop: ", 0) == 0) warnings.push_back(std::string("args.") + f.name + " has no effect: " + support.substr(6));
    else fail(std::string("args.") + f.name + ": not supported: " + support);
  }
  if (ddp_find_unused_parameters == false)
    warnings.push_back("args.ddp_find_unused_parameters = false has no effect: runner's gradient reduction always allows parameters without a gradient");
  check_accelerator_config(accelerator_config, warnings);

  if (warmup_ratio) {
    warnings.push_back("warmup_ratio is deprecated; use warmup_steps (a float < 1 is a ratio)");
    if (*warmup_ratio < 0 || *warmup_ratio > 1) fail("args.warmup_ratio: must be in [0, 1], got " + std::to_string(*warmup_ratio));
    if (warmup_steps == 0) warmup_steps = *warmup_ratio;
  }
  if (warmup_steps < 0) fail("args.warmup_steps: must be >= 0, got " + std::to_string(warmup_steps));
  if (warmup_steps >= 1 && !is_integral(warmup_steps))
    fail("args.warmup_steps: must be an integer if >= 1, got " + std::to_string(warmup_steps));
  for (const std::string& w : v4_warnings) warnings.push_back(w);
  if (!v4_fsdp_config.empty()) {
    if (fsdp_config.is_null()) fsdp_config = json::object();
    if (!fsdp_config.is_object())
      fail("args.fsdp_config: give it as a table to combine it with the v4 arguments fsdp_min_num_params / fsdp_transformer_layer_cls_to_wrap");
    for (const auto& [k, v] : v4_fsdp_config.items()) {
      if (fsdp_config.contains(k) && fsdp_config[k] != v) fail("args.fsdp_config." + k + " and its v4 argument fsdp_" + k + " disagree");
      fsdp_config[k] = v;
    }
  }
  if (include_tokens_per_second) {  // v4: train_tokens_per_second; v5 logs it with the token count
    warnings.push_back("include_tokens_per_second is a transformers v4 name (removed in v5); use include_num_input_tokens_seen = \"all\"");
    if (include_num_input_tokens_seen == "no") include_num_input_tokens_seen = "all";
  }
  // HF v5 removed logging_dir (TENSORBOARD_LOGGING_DIR replaces it); runner still honours it.
  if (logging_dir) warnings.push_back("logging_dir is deprecated in transformers v5 (it reads TENSORBOARD_LOGGING_DIR); runner still writes TensorBoard files there");
  if (no_cuda) {
    warnings.push_back("no_cuda is deprecated (transformers v5 removed it); use use_cpu");
    use_cpu = true;
  }
  if (!gradient_checkpointing_kwargs.is_null()) {
    if (!gradient_checkpointing_kwargs.is_object()) fail("args.gradient_checkpointing_kwargs: expected a table such as {use_reentrant = false}");
    for (const auto& [key, value] : gradient_checkpointing_kwargs.items()) {
      if (key != "use_reentrant")
        fail("args.gradient_checkpointing_kwargs: unknown key '" + key + "' (runner's checkpointing takes use_reentrant only)");
      if (!value.is_boolean()) fail("args.gradient_checkpointing_kwargs.use_reentrant: expected true or false, got " + value.dump());
      // PyTorch's two variants differ in mechanics (and in what they support), not in values.
      warnings.push_back("gradient_checkpointing_kwargs.use_reentrant has no effect: runner has one checkpointing implementation, "
                         "which recomputes the same values either way");
    }
  }
  if (eval_accumulation_steps && *eval_accumulation_steps < 1)
    fail("args.eval_accumulation_steps: must be >= 1, got " + std::to_string(*eval_accumulation_steps));
  if (generation_max_length && *generation_max_length < 1)
    fail("args.generation_max_length: must be >= 1, got " + std::to_string(*generation_max_length));
  if (generation_num_beams && *generation_num_beams < 1)
    fail("args.generation_num_beams: must be >= 1, got " + std::to_string(*generation_num_beams));
  if (group_by_length) {
    warnings.push_back("group_by_length is deprecated; use train_sampling_strategy=\"group_by_length\"");
    train_sampling_strategy = "group_by_length";
  }

  if (per_device_train_batch_size < 1) fail("args.per_device_train_batch_size: must be >= 1, got " + std::to_string(per_device_train_batch_size));
  if (per_device_eval_batch_size < 1) fail("args.per_device_eval_batch_size: must be >= 1, got " + std::to_string(per_device_eval_batch_size));
  if (gradient_accumulation_steps < 1) fail("args.gradient_accumulation_steps: must be >= 1, got " + std::to_string(gradient_accumulation_steps));
  if (learning_rate < 0) fail("args.learning_rate: must be >= 0, got " + std::to_string(learning_rate));
  if (max_grad_norm < 0) fail("args.max_grad_norm: must be >= 0 (0 disables clipping), got " + std::to_string(max_grad_norm));
  if (weight_decay < 0) fail("args.weight_decay: must be >= 0, got " + number_text(weight_decay));
  // The step's kernels compute in float: a larger value would overflow there, not here.
  for (const auto& [key, v] : {std::pair<const char*, double>{"learning_rate", learning_rate}, {"weight_decay", weight_decay},
                               {"max_grad_norm", max_grad_norm}, {"adam_epsilon", adam_epsilon}})
    if (std::abs(v) > std::numeric_limits<float>::max())
      fail(std::string("args.") + key + ": " + number_text(v) + " is beyond float32's range (3.4e38)");
  if (num_train_epochs < 0) fail("args.num_train_epochs: must be >= 0, got " + std::to_string(num_train_epochs));
  if (save_total_limit && *save_total_limit < 0) fail("args.save_total_limit: must be >= 0, got " + std::to_string(*save_total_limit));
  if (dataloader_num_workers < 0) fail("args.dataloader_num_workers: must be >= 0");
  if (dataloader_num_workers > 1024) fail("args.dataloader_num_workers: at most 1024 worker threads, got " + std::to_string(dataloader_num_workers));
  if (ddp_timeout <= 0) fail("args.ddp_timeout: must be > 0 seconds, got " + std::to_string(ddp_timeout));
  if (!(fault_timeout >= 0) || fault_timeout > 1e7) fail("args.fault_timeout: must be >= 0 seconds (0: off), got " + number_text(fault_timeout));
  if (eval_steps && *eval_steps <= 0) fail("args.eval_steps: must be > 0, got " + number_text(*eval_steps));
  if (logging_steps < 0) fail("args.logging_steps: must be >= 0, got " + number_text(logging_steps));
  if (dataloader_prefetch_factor && dataloader_num_workers == 0)
    fail("args.dataloader_prefetch_factor: can only be set when dataloader_num_workers > 0");
  if (torch_empty_cache_steps && *torch_empty_cache_steps < 1)
    fail("args.torch_empty_cache_steps: must be an integer bigger than 0, got " + std::to_string(*torch_empty_cache_steps));
  if (fp16 && bf16) fail("args.bf16: at most one of fp16 and bf16 can be true");
  if (const auto range = parse_step_range("profile_steps", profile_steps); range && max_steps > 0 && range->first > max_steps)
    fail("args.profile_steps: step " + std::to_string(range->first) + " is beyond max_steps (" + std::to_string(max_steps) + ")");

  if (logging_strategy == "steps" && logging_steps == 0) fail("args.logging_steps: logging strategy steps requires non-zero logging_steps");
  if (eval_strategy == "steps" && (!eval_steps || *eval_steps == 0)) {
    if (logging_steps == 0) fail("args.eval_steps: evaluation strategy steps requires either non-zero eval_steps or logging_steps");
    eval_steps = logging_steps;
  }
  auto check_steps = [&](const char* name, double v) {
    if (v < 0) fail(std::string("args.") + name + ": must be >= 0, got " + std::to_string(v));
    if (v > 1 && !is_integral(v)) fail(std::string("args.") + name + ": must be an integer if bigger than 1, got " + std::to_string(v));
  };
  check_steps("logging_steps", logging_steps);
  check_steps("save_steps", save_steps);
  if (eval_steps) check_steps("eval_steps", *eval_steps);

  if (load_best_model_at_end && save_strategy != "best") {
    if (eval_strategy != save_strategy)
      fail("args.load_best_model_at_end: requires the save and eval strategy to match (unless save_strategy=\"best\"), but found eval_strategy=" +
           eval_strategy + " and save_strategy=" + save_strategy);
    if (eval_strategy == "steps") {
      const double e = eval_steps.value_or(logging_steps), s = save_steps;
      if ((e < 1) != (s < 1))
        fail("args.load_best_model_at_end: requires save_steps to be a multiple of eval_steps, which cannot be guaranteed when mixing ratio and absolute steps (save_steps " +
             std::to_string(s) + ", eval_steps " + std::to_string(e) + ")");
      const double ratio = s / e;
      if (std::fabs(ratio - std::round(ratio)) > 1e-9)
        fail("args.load_best_model_at_end: requires save_steps to be a round multiple of eval_steps, but found " + nlohmann::json(s).dump() +
             ", which is not a round multiple of " + nlohmann::json(e).dump());
    }
  }
  if ((load_best_model_at_end || save_strategy == "best") && !metric_for_best_model) {
    if (save_strategy == "best") fail("args.metric_for_best_model: must be provided when save_strategy=\"best\"");
    metric_for_best_model = "loss";
  }
  if (metric_for_best_model && !greater_is_better) {
    const std::string& m = *metric_for_best_model;
    greater_is_better = !(m.size() >= 4 && m.compare(m.size() - 4, 4, "loss") == 0);
  }

  // report_to: runner's integrations are tensorboard and jsonl ("all": both); HF's others
  // (wandb, mlflow, ...) are Python services runner does not talk to.
  {
    const auto check = [&](const nlohmann::json& r) {
      if (!r.is_string()) fail("args.report_to: expected a string or a list of strings, got " + r.dump());
      const std::string n = r.get<std::string>();
      if (n != "none" && n != "all" && n != "tensorboard" && n != "jsonl")
        fail("args.report_to: \"" + n + "\" is not available; runner reports to \"tensorboard\" and \"jsonl\" (\"all\": both, \"none\": neither)");
      return n;
    };
    bool tensorboard = false;
    if (report_to.is_array()) {
      for (const auto& r : report_to) tensorboard |= check(r) == "tensorboard" || r == "all";
    } else if (!report_to.is_null()) {
      const std::string n = check(report_to);
      tensorboard = n == "tensorboard" || n == "all";
    }
    if (logging_dir && !tensorboard) warnings.push_back("logging_dir has no effect without report_to = \"tensorboard\"");
  }
  if (label_names.is_object() && label_names.empty()) label_names = json::array();  // Lua's {} is the empty list
  if (!label_names.is_null()) {
    if (!label_names.is_array()) fail("args.label_names: expected a list of field names");
    for (const auto& n : label_names)
      if (!n.is_string()) fail("args.label_names: expected a list of field names, got " + label_names.dump());
  }
  if (!include_for_metrics.is_array()) fail("args.include_for_metrics: expected a list (\"inputs\", \"loss\")");
  for (const auto& n : include_for_metrics)
    if (n != "inputs" && n != "loss") fail("args.include_for_metrics: unknown " + n.dump() + " (expected \"inputs\" or \"loss\")");
  if (lr_scheduler_kwargs.is_null()) lr_scheduler_kwargs = json::object();
  if (!lr_scheduler_kwargs.is_object()) fail("args.lr_scheduler_kwargs: expected a table of options");
  if (!resume_from_checkpoint.is_null() && !resume_from_checkpoint.is_boolean() && !resume_from_checkpoint.is_string())
    fail("args.resume_from_checkpoint: expected true, false, \"auto\" or a checkpoint folder");
  if (lr_scheduler_type == "reduce_lr_on_plateau" && eval_strategy == "no")
    fail("args.lr_scheduler_type: reduce_lr_on_plateau requires an eval strategy");
  if (lr_scheduler_type == "reduce_lr_on_plateau" && !metric_for_best_model) {
    metric_for_best_model = "loss";
    greater_is_better = false;
  }
  return warnings;
}

}  // namespace runner
