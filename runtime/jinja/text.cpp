#include "runtime/jinja/text.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

#include <unicode/locid.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>

#include "runtime/core/utf8.h"

namespace runner::jinja::text {

std::u32string decode(std::string_view s) {
  std::u32string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const size_t n = utf8_length(s, i);  // runtime/core/utf8.h
    out.push_back(static_cast<char32_t>(utf8_code_point(s, i, n)));
    i += n;
  }
  return out;
}

std::string encode(std::u32string_view cps) {
  std::string out;
  out.reserve(cps.size());
  for (char32_t c : cps) append_utf8(out, c);
  return out;
}

int64_t length(std::string_view s) {
  int64_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

bool is_space(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

std::string strip(std::string_view s, const std::string* chars, bool left, bool right) {
  const std::u32string cps = decode(s), set = chars ? decode(*chars) : std::u32string();
  auto drop = [&](char32_t c) { return chars ? set.find(c) != std::u32string::npos : is_space(c); };
  size_t b = 0, e = cps.size();
  while (left && b < e && drop(cps[b])) ++b;
  while (right && e > b && drop(cps[e - 1])) --e;
  return encode(std::u32string_view(cps).substr(b, e - b));
}

std::vector<std::string> split(std::string_view s, const std::string* sep, int64_t maxsplit, bool from_right) {
  std::vector<std::string> out;
  if (sep) {
    if (sep->empty()) return {std::string(s)};  // Python raises; callers check
    std::string_view rest = s;
    while (maxsplit < 0 || static_cast<int64_t>(out.size()) < maxsplit) {
      const size_t at = from_right ? rest.rfind(*sep) : rest.find(*sep);
      if (at == std::string_view::npos) break;
      if (from_right) {
        out.emplace_back(rest.substr(at + sep->size()));
        rest = rest.substr(0, at);
      } else {
        out.emplace_back(rest.substr(0, at));
        rest = rest.substr(at + sep->size());
      }
    }
    out.emplace_back(rest);
    if (from_right) std::reverse(out.begin(), out.end());
    return out;
  }
  std::u32string cps = decode(s);
  if (from_right) std::reverse(cps.begin(), cps.end());
  size_t i = 0;
  while (true) {
    while (i < cps.size() && is_space(cps[i])) ++i;
    if (i == cps.size()) break;
    size_t j = i;
    if (maxsplit >= 0 && static_cast<int64_t>(out.size()) == maxsplit) {
      j = cps.size();  // Python keeps the remainder's far-end whitespace
    } else {
      while (j < cps.size() && !is_space(cps[j])) ++j;
    }
    std::u32string piece = cps.substr(i, j - i);
    if (from_right) std::reverse(piece.begin(), piece.end());
    out.push_back(encode(piece));
    i = j;
  }
  if (from_right) std::reverse(out.begin(), out.end());
  return out;
}

std::string replace(std::string_view s, std::string_view old, std::string_view with, int64_t count) {
  std::string out;
  if (old.empty()) {  // Python inserts `with` around every code point
    const std::u32string cps = decode(s);
    int64_t done = 0;
    for (size_t i = 0; i <= cps.size(); ++i) {
      if (count < 0 || done < count) out += with, ++done;
      if (i < cps.size()) append_utf8(out, cps[i]);
    }
    return out;
  }
  size_t pos = 0;
  for (int64_t done = 0; count < 0 || done < count; ++done) {
    const size_t at = s.find(old, pos);
    if (at == std::string_view::npos) break;
    out.append(s.substr(pos, at - pos)).append(with);
    pos = at + old.size();
  }
  out.append(s.substr(pos));
  return out;
}

int64_t count(std::string_view s, std::string_view sub) {
  if (sub.empty()) return length(s) + 1;
  int64_t n = 0;
  for (size_t at = s.find(sub); at != std::string_view::npos; at = s.find(sub, at + sub.size())) ++n;
  return n;
}

int64_t find(std::string_view s, std::string_view sub, bool from_right) {
  const size_t at = from_right ? s.rfind(sub) : s.find(sub);
  return at == std::string_view::npos ? -1 : length(s.substr(0, at));
}

namespace {

std::string icu_case(std::string_view s, bool to_upper) {
  bool ascii = true;
  for (char c : s) ascii = ascii && static_cast<unsigned char>(c) < 0x80;
  if (ascii) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(to_upper ? std::toupper(static_cast<unsigned char>(c)) : std::tolower(static_cast<unsigned char>(c)));
    return out;
  }
  icu::UnicodeString u = icu::UnicodeString::fromUTF8(icu::StringPiece(s.data(), static_cast<int32_t>(s.size())));
  if (to_upper) u.toUpper(icu::Locale::getRoot());
  else u.toLower(icu::Locale::getRoot());
  std::string out;
  u.toUTF8String(out);
  return out;
}

bool cased(char32_t c) { return u_hasBinaryProperty(static_cast<UChar32>(c), UCHAR_CASED); }

std::string title_char(char32_t c) {  // the full title-case mapping (the ligature "ﬁ" becomes "Fi")
  if (c < 0x80) return std::string(1, static_cast<char>(std::toupper(static_cast<int>(c))));
  icu::UnicodeString u(static_cast<UChar32>(c));
  u.toTitle(nullptr, icu::Locale::getRoot(), U_TITLECASE_NO_LOWERCASE | U_TITLECASE_NO_BREAK_ADJUSTMENT);
  std::string out;
  u.toUTF8String(out);
  return out;
}

}  // namespace

std::string upper(std::string_view s) { return icu_case(s, true); }
std::string lower(std::string_view s) { return icu_case(s, false); }

std::string py_title(std::string_view s) {
  std::string out;
  bool previous_cased = false;
  for (char32_t c : decode(s)) {
    out += previous_cased ? lower(encode(std::u32string(1, c))) : title_char(c);
    previous_cased = cased(c);
  }
  return out;
}

std::string capitalize(std::string_view s) {
  const std::u32string cps = decode(s);
  if (cps.empty()) return "";
  return title_char(cps[0]) + lower(encode(std::u32string_view(cps).substr(1)));
}

std::string jinja_title(std::string_view s) {
  const std::u32string cps = decode(s);
  auto is_break = [](char32_t c) { return is_space(c) || c == '-' || c == '(' || c == '{' || c == '[' || c == '<'; };
  std::string out;
  for (size_t i = 0; i < cps.size();) {
    size_t j = i;
    const bool breaks = is_break(cps[i]);
    while (j < cps.size() && is_break(cps[j]) == breaks) ++j;
    const std::u32string_view word = std::u32string_view(cps).substr(i, j - i);
    if (breaks) out += encode(word);
    else out += upper(encode(word.substr(0, 1))) + lower(encode(word.substr(1)));
    i = j;
  }
  return out;
}

bool is_upper(std::string_view s) {
  bool any = false;
  for (char32_t c : decode(s)) {
    if (u_islower(static_cast<UChar32>(c)) || u_istitle(static_cast<UChar32>(c))) return false;
    any = any || u_isupper(static_cast<UChar32>(c));
  }
  return any;
}

bool is_lower(std::string_view s) {
  bool any = false;
  for (char32_t c : decode(s)) {
    if (u_isupper(static_cast<UChar32>(c)) || u_istitle(static_cast<UChar32>(c))) return false;
    any = any || u_islower(static_cast<UChar32>(c));
  }
  return any;
}

namespace {

// Python's printable: every character but the categories Cc, Cf, Cs, Co, Cn, Zl, Zp and Zs.
bool printable(char32_t c) {
  switch (u_charType(static_cast<UChar32>(c))) {
    case U_CONTROL_CHAR: case U_FORMAT_CHAR: case U_SURROGATE: case U_PRIVATE_USE_CHAR: case U_UNASSIGNED:
    case U_LINE_SEPARATOR: case U_PARAGRAPH_SEPARATOR: case U_SPACE_SEPARATOR:
      return false;
    default:
      return true;
  }
}

}  // namespace

std::string repr(std::string_view s) {
  const bool has_single = s.find('\'') != std::string_view::npos, has_double = s.find('"') != std::string_view::npos;
  const char quote = has_single && !has_double ? '"' : '\'';
  std::string out(1, quote);
  char buf[16];
  for (char32_t c : decode(s)) {
    if (c == static_cast<char32_t>(quote) || c == '\\') out += '\\', out += static_cast<char>(c);
    else if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c != ' ' && !printable(c))  // Python's str.isprintable(): \xNN, \uNNNN or \UNNNNNNNN
      std::snprintf(buf, sizeof buf, c < 0x100 ? "\\x%02x" : c < 0x10000 ? "\\u%04x" : "\\U%08x", static_cast<unsigned>(c)), out += buf;
    else append_utf8(out, c);
  }
  return out + quote;
}

std::string json_quote(std::string_view s) {
  std::string out = "\"";
  char buf[8];
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20) std::snprintf(buf, sizeof buf, "\\u%04x", c), out += buf;
        else out += ch;
    }
  }
  return out + "\"";
}

std::string format_float(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
  if (d == 0) return std::signbit(d) ? "-0.0" : "0.0";
  // The shortest digits that round-trip, as repr() picks them, then repr()'s layout: plain
  // notation for exponents -4..15, scientific with a two-digit exponent otherwise.
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  const size_t e_at = sci.find('e');
  const int exp = std::stoi(sci.substr(e_at + 1));
  std::string digits;
  const bool negative = sci[0] == '-';
  for (size_t i = negative ? 1 : 0; i < e_at; ++i)
    if (sci[i] != '.') digits += sci[i];
  std::string out = negative ? "-" : "";
  if (exp >= -4 && exp < 16) {
    if (exp < 0) {
      out += "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
    } else if (static_cast<int>(digits.size()) <= exp + 1) {
      out += digits + std::string(static_cast<size_t>(exp + 1) - digits.size(), '0') + ".0";
    } else {
      out += digits.substr(0, static_cast<size_t>(exp + 1)) + "." + digits.substr(static_cast<size_t>(exp + 1));
    }
    return out;
  }
  out += digits.substr(0, 1);
  if (digits.size() > 1) out += "." + digits.substr(1);
  std::snprintf(buf, sizeof buf, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
  return out + buf;
}

}  // namespace runner::jinja::text
