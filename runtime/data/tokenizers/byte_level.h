// GPT-2's byte-level alphabet: each of the 256 byte values stands for one printable Unicode
// character (printable ASCII and Latin-1 map to themselves, the rest to U+0100...), so any
// byte string is a string of "characters" a BPE vocabulary can hold.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/core/utf8.h"  // utf8_length, append_utf8, ...: the tokenizers use them unqualified

namespace runner::data {

// The UTF-8 of the character byte `b` stands for.
const std::string& byte_char(uint8_t b);
// Every byte of `bytes` as its character, concatenated.
std::string to_byte_chars(std::string_view bytes);
// The byte a code point stands for, or -1 when it is not in the alphabet.
int byte_of_char(uint32_t code_point);



}  // namespace runner::data
