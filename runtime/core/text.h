// Small text helpers shared by the layers (argument values, config names, layer names).
#pragma once
#include <cctype>
#include <string>

namespace runner {

inline std::string to_lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace runner
