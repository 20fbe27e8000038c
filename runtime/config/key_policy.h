// Keys of a foreign configuration (DeepSpeed, FSDP) that runner knows but does not act on.
// Nothing is accepted and silently ignored: at a neutral value (the one that asks for what
// runner does anyway) a key passes; otherwise it either cannot change results and warns
// once that it has no effect, or it is refused with the reason.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace runner::config {

struct KeyPolicy {
  std::string path;                  // dotted, e.g. "zero_optimization.overlap_comm"
  std::vector<nlohmann::json> neutral;  // values that pass silently; empty = any value speaks
  bool refuse = false;               // true: an error; false: a warning that it has no effect
  std::string why;
};

// Checks `config` against `table`. A refused key throws ArgumentError("<prefix><path>:
// not supported: why", where); keys with no effect add one warning per reason, naming them.
// "auto" is always neutral (HF fills it).
void apply_key_policies(const nlohmann::json& config, const std::vector<KeyPolicy>& table, const std::string& prefix,
                        const std::string& where, std::vector<std::string>& warnings);

}  // namespace runner::config
