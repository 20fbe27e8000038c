#include "runtime/data/tokenizers/byte_level.h"

#include <array>

namespace runner::data {

namespace {

struct Tables {
  std::array<std::string, 256> chars;
  std::array<uint32_t, 256> code_points{};
  Tables() {
    // GPT-2's bytes_to_unicode: bytes that are printable keep their code point, the others
    // take 256, 257, ... in byte order.
    uint32_t next = 256;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      code_points[b] = printable ? static_cast<uint32_t>(b) : next++;
      append_utf8(chars[b], code_points[b]);
    }
  }
};

const Tables& tables() {
  static const Tables t;
  return t;
}

}  // namespace

bool is_white_space(uint32_t c) {
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 ||
         c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

const std::string& byte_char(uint8_t b) { return tables().chars[b]; }

std::string to_byte_chars(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) out += tables().chars[c];
  return out;
}

int byte_of_char(uint32_t cp) {
  if (cp < 256) {
    const auto& t = tables();
    if (t.code_points[cp] == cp) return static_cast<int>(cp);
  }
  if (cp >= 256 && cp < 256 + 68) {
    const auto& t = tables();
    for (int b = 0; b < 256; ++b)
      if (t.code_points[b] == cp) return b;
  }
  return -1;
}

size_t utf8_length(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
  if (i + n > s.size()) return 1;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 1;
  return n;
}

uint32_t utf8_code_point(std::string_view s, size_t i, size_t n) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (n == 1) return c < 0x80 ? c : 0xFFFD;
  uint32_t cp = n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
  for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  // Overlong forms and surrogates are invalid, as Rust's decoder says.
  if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
    return 0xFFFD;
  return cp;
}

std::string utf8_lossy(std::string_view s, std::vector<std::pair<size_t, size_t>>* source) {
  // One U+FFFD per maximal invalid subpart, as Rust's from_utf8_lossy (and the WHATWG
  // decoder) do: a truncated 3-byte sequence becomes one replacement, not two.
  auto byte = [&s](size_t i) { return static_cast<unsigned char>(s[i]); };
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = byte(i);
    if (c < 0x80) {
      out += static_cast<char>(c);
      if (source) source->emplace_back(i, i + 1);
      ++i;
      continue;
    }
    int n = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) n = 2;
    else if (c == 0xE0) n = 3, lo = 0xA0;
    else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) n = 3;
    else if (c == 0xED) n = 3, hi = 0x9F;
    else if (c == 0xF0) n = 4, lo = 0x90;
    else if (c >= 0xF1 && c <= 0xF3) n = 4;
    else if (c == 0xF4) n = 4, hi = 0x8F;
    size_t j = i + 1;
    int need = n - 1;
    if (n > 0 && j < s.size() && byte(j) >= lo && byte(j) <= hi) {
      ++j, --need;
      while (need > 0 && j < s.size() && byte(j) >= 0x80 && byte(j) <= 0xBF) ++j, --need;
    }
    const size_t before = out.size();
    if (n > 0 && need == 0) out.append(s.substr(i, j - i));
    else out += "\xEF\xBF\xBD";
    if (source) source->insert(source->end(), out.size() - before, {i, j});
    i = j;
  }
  return out;
}

}  // namespace runner::data
