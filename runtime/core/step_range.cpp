#include "runtime/core/step_range.h"

#include <cctype>

#include "runtime/core/errors.h"

namespace runner {

namespace {
// Digits only (no sign, no spaces): std::stoll would accept " 3" and "3x".
std::optional<int64_t> parse_step(const std::string& s) {
  if (s.empty() || s.size() > 18) return std::nullopt;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  return std::stoll(s);
}
}  // namespace

std::optional<StepRange> parse_step_range(const std::string& key, const std::string& text) {
  if (text.empty()) return std::nullopt;
  const std::string where = "args." + key + ": ";
  const size_t dash = text.find('-');
  const auto first = parse_step(text.substr(0, dash));
  const auto last = dash == std::string::npos ? first : parse_step(text.substr(dash + 1));
  if (!first || !last) throw ArgumentError(where + "expected \"A-B\" (global steps, 1-based, inclusive) or \"N\", got \"" + text + "\"");
  if (*first < 1) throw ArgumentError(where + "steps count from 1, got \"" + text + "\"");
  if (*first > *last) throw ArgumentError(where + "the first step is after the last, got \"" + text + "\"");
  return StepRange{*first, *last};
}

}  // namespace runner
