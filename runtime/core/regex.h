// A compiled PCRE2 pattern in UTF-8 mode with Unicode properties (\p{L}, \p{N}) and
// lookahead: the syntax of Python's `re` that users' patterns are written in (peft's
// target_modules, optimizer parameter groups) and that the pre-tokenizer patterns of GPT-2,
// Llama 3 and Qwen 2 need (std::regex has neither); JIT-compiled where PCRE2 supports it.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/core/errors.h"

namespace runner {

class Regex {
 public:
  // A pattern that does not compile is an error of `kind` naming `what`, the pattern and the
  // offset where PCRE2 gave up.
  explicit Regex(const std::string& pattern, const std::string& what = "tokenizer pattern", ErrorKind kind = ErrorKind::kData);
  ~Regex();
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;
  // Every non-overlapping match in `text`, as [begin, end) byte offsets, left to right.
  std::vector<std::pair<size_t, size_t>> find_all(std::string_view text) const;
  // Python's re.fullmatch and re.search. `groups`, when given, receives the match ([0]) and
  // each capture group ("" for a group that took no part).
  bool full_match(std::string_view text, std::vector<std::string>* groups = nullptr) const;
  bool search(std::string_view text, std::vector<std::string>* groups = nullptr) const;

 private:
  bool match(std::string_view text, uint32_t options, std::vector<std::string>* groups) const;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace runner
