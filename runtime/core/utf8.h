// UTF-8 as the tokenizers and the Jinja engine read and write it (Rust's rules: what
// Hugging Face tokenizers and minijinja do).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace runner {

// UTF-8 helpers: the length of the character starting at s[i] (1 for a stray byte), and its
// code point (U+FFFD for an invalid sequence).
size_t utf8_length(std::string_view s, size_t i);
uint32_t utf8_code_point(std::string_view s, size_t i, size_t length);
// Unicode White_Space: Rust's char::is_whitespace and regex `\s`, what tokenizers strips.
bool is_white_space(uint32_t c);
// The UTF-8 of code point `cp`, appended to `out`.
void append_utf8(std::string& out, uint32_t cp);
// `s` with every invalid UTF-8 sequence replaced by U+FFFD, as Rust's from_utf8_lossy does.
// `source`, when given, receives for each byte of the result the [begin, end) of `s` its
// character stands for.
std::string utf8_lossy(std::string_view s, std::vector<std::pair<size_t, size_t>>* source = nullptr);

}  // namespace runner
