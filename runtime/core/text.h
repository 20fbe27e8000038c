// Small text helpers shared by the layers (argument values, config names, layer names).
#pragma once
#include <cctype>
#include <string>
#include <string_view>

namespace runner {

// A message's first line: what a one-line error or warning quotes of a longer one.
inline std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

inline bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

inline std::string to_lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace runner
