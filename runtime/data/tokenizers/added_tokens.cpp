#include "runtime/data/tokenizers/added_tokens.h"

#include <algorithm>

#include <unicode/uchar.h>

#include "runtime/core/utf8.h"

namespace runner::data {

namespace {

// Where the character before byte `at` (> 0) starts.
size_t previous_char(std::string_view s, size_t at) {
  size_t b = at - 1;
  while (b > 0 && (static_cast<unsigned char>(s[b]) & 0xC0) == 0x80) --b;
  return b;
}

uint32_t char_at(std::string_view s, size_t at) { return utf8_code_point(s, at, utf8_length(s, at)); }

// A character of Rust's regex `\w` (Unicode: Alphabetic, marks, decimal digits, connector
// punctuation, joiners), which tokenizers' single_word tokens must not touch.
bool is_word_character(uint32_t c) {
  return u_hasBinaryProperty(static_cast<UChar32>(c), UCHAR_ALPHABETIC) ||
         (U_GET_GC_MASK(static_cast<UChar32>(c)) & (U_GC_M_MASK | U_GC_ND_MASK | U_GC_PC_MASK)) != 0 ||
         u_hasBinaryProperty(static_cast<UChar32>(c), UCHAR_JOIN_CONTROL);
}

}  // namespace

void AddedMatcher::add(Entry e) {
  if (e.pattern.empty()) return;
  auto& list = by_first_byte_[static_cast<unsigned char>(e.pattern[0])];
  list.push_back(std::move(e));
  std::stable_sort(list.begin(), list.end(), [](const Entry& a, const Entry& b) { return a.pattern.size() > b.pattern.size(); });
  empty_ = false;
}

size_t AddedMatcher::spaces_before(std::string_view s, size_t at) {
  while (at > 0) {
    const size_t b = previous_char(s, at);
    if (!is_white_space(char_at(s, b))) break;
    at = b;
  }
  return at;
}

size_t AddedMatcher::spaces_after(std::string_view s, size_t at) {
  while (at < s.size() && is_white_space(char_at(s, at))) at += utf8_length(s, at);
  return at;
}

bool AddedMatcher::stands_alone(std::string_view s, size_t begin, size_t end) {
  if (begin > 0 && is_word_character(char_at(s, previous_char(s, begin)))) return false;
  return end == s.size() || !is_word_character(char_at(s, end));
}

}  // namespace runner::data
