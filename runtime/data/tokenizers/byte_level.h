// GPT-2's byte-level alphabet: each of the 256 byte values stands for one printable Unicode
// character (printable ASCII and Latin-1 map to themselves, the rest to U+0100...), so any
// byte string is a string of "characters" a BPE vocabulary can hold.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace runner::data {

// The UTF-8 of the character byte `b` stands for.
const std::string& byte_char(uint8_t b);
// Every byte of `bytes` as its character, concatenated.
std::string to_byte_chars(std::string_view bytes);
// The byte a code point stands for, or -1 when it is not in the alphabet.
int byte_of_char(uint32_t code_point);

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

}  // namespace runner::data
