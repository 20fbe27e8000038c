// profile_steps' text, "A-B" or "N": an inclusive range of 1-based global steps. Parsed in
// one place so the argument check and the trainer read the same steps.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace runner {

struct StepRange {
  int64_t first = 0, last = 0;  // 1-based global steps, first <= last
  bool contains(int64_t step) const { return step >= first && step <= last; }
};

// nullopt for "" (off); ArgumentError naming args.<key> for anything else that is not
// "N" or "A-B" with 1 <= A <= B.
std::optional<StepRange> parse_step_range(const std::string& key, const std::string& text);

}  // namespace runner
