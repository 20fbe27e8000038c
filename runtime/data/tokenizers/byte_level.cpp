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

}  // namespace runner::data
