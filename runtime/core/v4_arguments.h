// transformers v4 argument names that v5 dropped (docs/migrating.md): where each one's value
// goes now, or why it has no counterpart. TrainingArguments::set maps them; the command line
// uses the table to tell an argument from a recipe option.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace runner {

struct V4Argument {
  const char* name;
  const char* now;  // the v5 argument (fsdp_config.<key> for FSDP keys); "" when refused
  const char* why;  // the pointer given when refused
  // v4's default as JSON ("" when none): a v4 training_args.json lists every field, so at
  // this value a name without a v5 counterpart is dropped with a warning, not refused.
  const char* v4_default = "";
};

// The entry for `name`, or nullptr when it is not a dropped v4 name.
const V4Argument* find_v4_argument(const std::string& name);

// An args table that names one argument twice (a v4 name or an alias beside the v5 one) with
// different values: an ArgumentError naming both keys.
void check_one_name_per_argument(const nlohmann::json& args);

}  // namespace runner
