// A compiled PCRE2 pattern in UTF-8 mode with Unicode properties (\p{L}, \p{N}) and
// lookahead, which the pre-tokenizer patterns of GPT-2, Llama 3 and Qwen 2 need (std::regex
// has neither); JIT-compiled where PCRE2 supports it.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace runner::data {

class Regex {
 public:
  explicit Regex(const std::string& pattern);  // DataError naming the pattern when it does not compile
  ~Regex();
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;
  // Every non-overlapping match in `text`, as [begin, end) byte offsets, left to right.
  std::vector<std::pair<size_t, size_t>> find_all(std::string_view text) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace runner::data
