#include "runtime/core/utf8.h"

namespace runner {

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

}  // namespace runner
