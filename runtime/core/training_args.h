// TrainingArguments: HF's argument set, generated from training_args.def.
//
// Precedence: defaults < recipe `args` < command line. `finalize()` fills derived defaults
// (eval_steps from logging_steps, warmup_ratio into warmup_steps, metric_for_best_model,
// greater_is_better) and validates; after it the struct is read-only by convention.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace runner {

namespace argtype {
using Bool = bool;
using Int = int64_t;
using Float = double;
using Str = std::string;
using OptBool = std::optional<bool>;
using OptInt = std::optional<int64_t>;
using OptFloat = std::optional<double>;
using OptStr = std::optional<std::string>;
using Json = nlohmann::json;
}  // namespace argtype

struct TrainingArguments {
#define ARG(name, type, def, choices, aliases, support, help) argtype::type name = def;
#include "runtime/core/training_args.def"
#undef ARG

  // Set `key` from a JSON value (recipe tables arrive as JSON). Throws ArgumentError naming
  // `args.<key>`; unknown keys get a did-you-mean suggestion.
  void set(const std::string& key, const nlohmann::json& value);
  // Set `key` from command-line text, parsed by the field's type ("true", "3", "1e-4", JSON).
  void set_from_string(const std::string& key, const std::string& text);
  // Apply every key of a JSON object with set().
  void update(const nlohmann::json& object);

  // Derived defaults + validation (HF __post_init__ semantics and the checks HF lacks).
  std::vector<std::string> finalize();  // returns warnings to log

  // transformers v4 names set() mapped onto v5 arguments (docs/migrating.md): the
  // deprecation warnings finalize() returns, and fsdp_config keys given as v4 arguments
  // (merged into fsdp_config by finalize, whatever order they came in).
  std::vector<std::string> v4_warnings;
  nlohmann::json v4_fsdp_config = nlohmann::json::object();

  // Every field, in declaration order (HF to_dict, tokens masked).
  nlohmann::json to_json() const;
  static TrainingArguments from_json(const nlohmann::json& object);

  // Derived values used by the trainer.
  int64_t effective_data_seed() const { return data_seed.value_or(seed); }
  // HF v5 get_warmup_steps: int steps when >= 1, else ceil(total × ratio).
  int64_t warmup_steps_for(int64_t total_steps) const;
  std::vector<std::string> label_field_names() const;
};

// Metadata of one field, for `runner args`, docs and did-you-mean.
struct ArgField {
  const char* name;
  const char* type;      // Bool, Int, ...
  const char* choices;   // "a|b" or ""
  const char* aliases;   // "old" or ""
  const char* support;   // "" or the reason a non-default value is refused
  const char* help;
  nlohmann::json default_value;
};
const std::vector<ArgField>& arg_fields();
const ArgField* find_arg_field(const std::string& name);  // also matches aliases

}  // namespace runner
