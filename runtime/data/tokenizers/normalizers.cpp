#include "runtime/data/tokenizers/normalizers.h"

#include <algorithm>
#include <memory>
#include <stdexcept>

#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>
#include <unicode/utf16.h>
#include <unicode/ustring.h>

#include "runtime/core/base64.h"
#include "runtime/core/regex.h"
#include "runtime/data/tokenizers/byte_level.h"
#include "runtime/data/tokenizers/precompiled_charsmap.h"

namespace runner::data {

using nlohmann::json;

struct Normalizer::Step {
  enum class Kind { kUnicode, kPrepend, kReplace, kLowercase, kStrip, kBert, kPrecompiled, kStripAccents } kind = Kind::kUnicode;
  // kBert (BertNormalizer): its four switches; strip_accents follows lowercase when null.
  bool clean_text = true, chinese_chars = true, strip_accents = true, lowercase = true;
  std::string form;              // kUnicode: NFC, NFKC, NFD or NFKD
  std::string text;              // kPrepend: what goes before; kReplace: what replaces a match
  std::string literal;           // kReplace with a String pattern
  std::shared_ptr<Regex> regex;  // kReplace with a Regex pattern
  bool left = true, right = true;  // kStrip
  std::shared_ptr<PrecompiledCharsMap> charsmap;  // kPrecompiled
};

namespace {

const icu::Normalizer2& icu_form(const std::string& form, bool decompose_only = false) {
  UErrorCode status = U_ZERO_ERROR;
  const bool compat = form == "NFKC" || form == "NFKD";
  const bool compose = !decompose_only && (form == "NFC" || form == "NFKC");
  const icu::Normalizer2* n = compose ? (compat ? icu::Normalizer2::getNFKCInstance(status) : icu::Normalizer2::getNFCInstance(status))
                                      : (compat ? icu::Normalizer2::getNFKDInstance(status) : icu::Normalizer2::getNFDInstance(status));
  if (U_FAILURE(status) || !n) throw std::runtime_error(form + " normalization is unavailable (ICU data)");
  return *n;
}

// Rust's char::to_lowercase, which tokenizers' Lowercase applies character by character: the full
// mapping without context (ICU's on the lone character, so Σ is σ).
void lowercase(uint32_t cp, std::vector<uint32_t>& out) {
  if (cp < 0x80) return out.push_back(cp >= 'A' && cp <= 'Z' ? cp + 32 : cp);
  UChar src[2], dst[8];
  int32_t n = 0;
  U16_APPEND_UNSAFE(src, n, cp);
  UErrorCode status = U_ZERO_ERROR;
  const int32_t len = u_strToLower(dst, 8, src, n, "", &status);
  if (U_FAILURE(status)) return out.push_back(cp);
  for (int32_t i = 0; i < len;) {
    UChar32 c;
    U16_NEXT(dst, i, len, c);
    out.push_back(static_cast<uint32_t>(c));
  }
}

// tokenizers' Unicode normal forms with alignments, as its unicode-normalization-alignments crate
// yields them: each character's full decomposition (the first code point replaces the character,
// the others are inserted), combining marks stably sorted by class, then for NFC/NFKC canonical
// composition onto the last starter, a composite's change being its parts' summed, minus one.
std::vector<AlignedText::Change> normal_form(std::string_view text, const std::string& form) {
  const icu::Normalizer2& decompose = icu_form(form, /*decompose_only=*/true);
  const icu::Normalizer2& nfc = icu_form("NFC");
  struct Item {
    uint32_t cp;
    int change;
    uint8_t ccc;
  };
  std::vector<Item> items;
  items.reserve(text.size());
  size_t block = 0;  // where the marks after the last starter begin
  auto push = [&](uint32_t cp, int change) {
    const auto ccc = static_cast<uint8_t>(u_getCombiningClass(static_cast<UChar32>(cp)));
    if (ccc == 0) {
      std::stable_sort(items.begin() + block, items.end(), [](const Item& a, const Item& b) { return a.ccc < b.ccc; });
      block = items.size();
    }
    items.push_back({cp, change, ccc});
  };
  icu::UnicodeString parts;
  for (size_t i = 0; i < text.size();) {
    const size_t n = utf8_length(text, i);
    const uint32_t cp = utf8_code_point(text, i, n);
    i += n;
    if (cp < 0xA0 || !decompose.getDecomposition(static_cast<UChar32>(cp), parts)) {
      push(cp, 0);
      continue;
    }
    bool first = true;
    for (int32_t k = 0; k < parts.length();) {
      const UChar32 c = parts.char32At(k);
      push(static_cast<uint32_t>(c), first ? 0 : 1);
      first = false;
      k += U16_LENGTH(c);
    }
  }
  std::stable_sort(items.begin() + block, items.end(), [](const Item& a, const Item& b) { return a.ccc < b.ccc; });
  std::vector<AlignedText::Change> out;
  out.reserve(items.size());
  if (form == "NFD" || form == "NFKD") {
    for (const Item& it : items) out.push_back({it.cp, it.change});
    return out;
  }
  // Composition: `starter` takes the marks that compose with it; the others wait in `held` and
  // follow it out. A mark is blocked by a held one of the same or a higher class.
  bool have_starter = false;
  AlignedText::Change starter{0, 0};
  std::vector<AlignedText::Change> held;
  int last_held_ccc = -1;
  auto compose = [&](uint32_t a, uint32_t b) -> int64_t { return b < 0x300 ? -1 : nfc.composePair(static_cast<UChar32>(a), static_cast<UChar32>(b)); };
  for (const Item& it : items) {
    if (!have_starter) {
      if (it.ccc != 0) out.push_back({it.cp, it.change});
      else starter = {it.cp, it.change}, have_starter = true;
      continue;
    }
    if (last_held_ccc < 0 || last_held_ccc < it.ccc) {
      const int64_t r = compose(starter.code_point, it.cp);
      if (r >= 0) {
        starter = {static_cast<uint32_t>(r), starter.change + it.change - 1};
        continue;
      }
    }
    if (it.ccc == 0) {
      out.push_back(starter);
      out.insert(out.end(), held.begin(), held.end());
      held.clear();
      last_held_ccc = -1;
      starter = {it.cp, it.change};
      continue;
    }
    held.push_back({it.cp, it.change});
    last_held_ccc = it.ccc;
  }
  if (have_starter) out.push_back(starter);
  out.insert(out.end(), held.begin(), held.end());
  return out;
}

// Replace's matches: the regex's, or the literal's left to right.
std::vector<std::pair<size_t, size_t>> matches(const Regex* regex, std::string_view literal, std::string_view text) {
  if (regex) return regex->find_all(text);
  std::vector<std::pair<size_t, size_t>> out;
  for (size_t b = text.find(literal); b != std::string_view::npos; b = text.find(literal, b + literal.size()))
    out.emplace_back(b, b + literal.size());
  return out;
}

// The characters Strip keeps: [begin, end) bytes of `text`.
std::pair<size_t, size_t> unstripped(std::string_view text, bool left, bool right) {
  size_t b = 0, e = text.size();
  while (left && b < e) {
    const size_t n = utf8_length(text, b);
    if (!is_white_space(utf8_code_point(text, b, n))) break;
    b += n;
  }
  while (right && e > b) {
    size_t p = e - 1;
    while (p > b && (static_cast<unsigned char>(text[p]) & 0xC0) == 0x80) --p;
    if (!is_white_space(utf8_code_point(text, p, utf8_length(text, p)))) break;
    e = p;
  }
  return {b, e};
}

// Lowercase as tokenizers' NormalizedString::lowercase: each character's full mapping, the
// extra characters inserted after it.
void lowercase_all(AlignedText& t) {
  std::vector<AlignedText::Change> chars;
  chars.reserve(t.text.size());
  std::vector<uint32_t> lower;
  for (size_t i = 0; i < t.text.size();) {
    const size_t n = utf8_length(t.text, i);
    lower.clear();
    lowercase(utf8_code_point(t.text, i, n), lower);
    for (size_t k = 0; k < lower.size(); ++k) chars.push_back({lower[k], k == 0 ? 0 : 1});
    i += n;
  }
  t.transform(chars);
}

// NormalizedString::filter then map: characters `drop` rejects are removed (each kept one
// carrying the count removed after it), the others become map(c).
template <class Drop, class Map>
void filter_map(AlignedText& t, Drop drop, Map map) {
  std::vector<AlignedText::Change> chars;
  chars.reserve(t.text.size());
  size_t removed_at_start = 0;
  for (size_t i = 0; i < t.text.size();) {
    const size_t n = utf8_length(t.text, i);
    const uint32_t c = utf8_code_point(t.text, i, n);
    i += n;
    if (!drop(c)) chars.push_back({map(c), 0});
    else if (chars.empty()) ++removed_at_start;
    else --chars.back().change;
  }
  t.transform(chars, removed_at_start);
}

// BertNormalizer's character classes (tokenizers' normalizers/bert.rs).
bool bert_whitespace(uint32_t c) { return c == '\t' || c == '\n' || c == '\r' || is_white_space(c); }
bool bert_control(uint32_t c) {
  if (c == '\t' || c == '\n' || c == '\r') return false;
  const int8_t type = u_charType(static_cast<UChar32>(c));  // Unicode's "Other" categories
  return type == U_CONTROL_CHAR || type == U_FORMAT_CHAR || type == U_UNASSIGNED || type == U_PRIVATE_USE_CHAR || type == U_SURROGATE;
}
bool chinese_char(uint32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) || (c >= 0x2A700 && c <= 0x2B73F) ||
         (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) || (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

void bert_normalize(const Normalizer::Step& s, AlignedText& t);
void strip_accents(AlignedText& t);

}  // namespace

Normalizer::Normalizer(const json& spec) { load(spec); }
Normalizer::~Normalizer() = default;

void Normalizer::load(const json& n) {
  if (n.is_null()) return;
  const std::string type = n.value("type", "");
  Step s;
  if (type == "Sequence") {
    for (const auto& step : n.at("normalizers")) load(step);
    return;
  } else if (type == "NFC" || type == "NFKC" || type == "NFD" || type == "NFKD") {
    s.form = type;
  } else if (type == "Prepend") {
    s.kind = Step::Kind::kPrepend;
    s.text = n.at("prepend").get<std::string>();
  } else if (type == "Replace") {
    s.kind = Step::Kind::kReplace;
    s.text = n.at("content").get<std::string>();
    const json& pattern = n.at("pattern");
    if (pattern.contains("Regex")) s.regex = std::make_shared<Regex>(pattern["Regex"].get<std::string>());
    else if (pattern.contains("String")) s.literal = pattern["String"].get<std::string>();
    else throw std::runtime_error("normalizer Replace: pattern must be {\"Regex\": ...} or {\"String\": ...}");
    if (!s.regex && s.literal.empty()) throw std::runtime_error("normalizer Replace: an empty String pattern is not supported");
  } else if (type == "Lowercase") {
    s.kind = Step::Kind::kLowercase;
  } else if (type == "BertNormalizer") {
    s.kind = Step::Kind::kBert;
    s.clean_text = n.value("clean_text", true);
    s.chinese_chars = n.value("handle_chinese_chars", true);
    s.lowercase = n.value("lowercase", true);
    s.strip_accents = n.contains("strip_accents") && !n["strip_accents"].is_null() ? n["strip_accents"].get<bool>() : s.lowercase;
  } else if (type == "Strip") {
    s.kind = Step::Kind::kStrip;
    s.left = n.value("strip_left", true);
    s.right = n.value("strip_right", true);
  } else if (type == "StripAccents") {
    s.kind = Step::Kind::kStripAccents;
  } else if (type == "Precompiled") {
    s.kind = Step::Kind::kPrecompiled;
    const auto blob = base64_decode(n.at("precompiled_charsmap").get<std::string>());
    if (!blob) throw std::runtime_error("normalizer Precompiled: precompiled_charsmap is not base64");
    s.charsmap = std::make_shared<PrecompiledCharsMap>(*blob);
  } else {
    throw std::runtime_error("normalizer \"" + type +
                             "\" is not supported yet (NFC, NFKC, NFD, NFKD, Prepend, Replace, Lowercase, Strip, StripAccents, BertNormalizer, "
                             "Precompiled, Sequence)");
  }
  steps_.push_back(std::move(s));
}

std::string Normalizer::run(std::string_view input) const {
  std::string text(input);
  for (const Step& s : steps_) {
    if (s.kind == Step::Kind::kPrecompiled) {
      text = s.charsmap->apply(text);
    } else if (s.kind == Step::Kind::kBert || s.kind == Step::Kind::kStripAccents) {
      AlignedText t = AlignedText::of(text);
      if (s.kind == Step::Kind::kBert) bert_normalize(s, t);
      else strip_accents(t);
      text = std::move(t.text);
    } else if (s.kind == Step::Kind::kPrepend) {
      if (!text.empty()) text.insert(0, s.text);  // tokenizers leaves an empty text empty
    } else if (s.kind == Step::Kind::kReplace) {
      std::string out;
      out.reserve(text.size() + text.size() / 4);
      size_t at = 0;
      for (const auto& [b, e] : matches(s.regex.get(), s.literal, text)) {
        out.append(text, at, b - at);
        out += s.text;
        at = e;
      }
      out.append(text, at, std::string::npos);
      text = std::move(out);
    } else if (s.kind == Step::Kind::kLowercase) {
      std::string out;
      out.reserve(text.size());
      std::vector<uint32_t> lower;
      for (size_t i = 0; i < text.size();) {
        const size_t n = utf8_length(text, i);
        lower.clear();
        lowercase(utf8_code_point(text, i, n), lower);
        for (uint32_t c : lower) append_utf8(out, c);
        i += n;
      }
      text = std::move(out);
    } else if (s.kind == Step::Kind::kStrip) {
      const auto [b, e] = unstripped(text, s.left, s.right);
      text = text.substr(b, e - b);
    } else {
      UErrorCode status = U_ZERO_ERROR;
      icu::UnicodeString normalized = icu_form(s.form).normalize(icu::UnicodeString::fromUTF8(text), status);
      if (U_FAILURE(status)) throw std::runtime_error(s.form + " normalization failed");
      text.clear();
      normalized.toUTF8String(text);
    }
  }
  return text;
}

void Normalizer::run(AlignedText& t) const {
  for (const Step& s : steps_) {
    if (s.kind == Step::Kind::kPrepend) {
      t.prepend(s.text);
    } else if (s.kind == Step::Kind::kReplace) {
      t.replace(matches(s.regex.get(), s.literal, t.text), s.text);
    } else if (s.kind == Step::Kind::kLowercase) {
      lowercase_all(t);
    } else if (s.kind == Step::Kind::kBert) {
      bert_normalize(s, t);
    } else if (s.kind == Step::Kind::kPrecompiled) {
      s.charsmap->apply(t);
    } else if (s.kind == Step::Kind::kStripAccents) {
      strip_accents(t);
    } else if (s.kind == Step::Kind::kStrip) {
      const auto [b, e] = unstripped(t.text, s.left, s.right);
      t = t.slice(b, e);
    } else {
      t.transform(normal_form(t.text, s.form));
    }
  }
}

namespace {

// tokenizers' BertNormalizer: control characters out and white space to " ", spaces around
// CJK ideographs, accents stripped (NFD, then non-spacing marks out), lowercase; in that order.
void bert_normalize(const Normalizer::Step& s, AlignedText& t) {
  if (s.clean_text)
    filter_map(t, [](uint32_t c) { return c == 0 || c == 0xFFFD || bert_control(c); }, [](uint32_t c) { return bert_whitespace(c) ? uint32_t{' '} : c; });
  if (s.chinese_chars) {
    std::vector<AlignedText::Change> chars;
    chars.reserve(t.text.size());
    for (size_t i = 0; i < t.text.size();) {
      const size_t n = utf8_length(t.text, i);
      const uint32_t c = utf8_code_point(t.text, i, n);
      i += n;
      if (chinese_char(c)) chars.insert(chars.end(), {{' ', 0}, {c, 1}, {' ', 1}});
      else chars.push_back({c, 0});
    }
    t.transform(chars);
  }
  if (s.strip_accents) {
    t.transform(normal_form(t.text, "NFD"));
    filter_map(t, [](uint32_t c) { return u_charType(static_cast<UChar32>(c)) == U_NON_SPACING_MARK; }, [](uint32_t c) { return c; });
  }
  if (s.lowercase) lowercase_all(t);
}

// tokenizers' StripAccents: every combining mark out (General_Category M: Mn, Mc, Me), as
// unicode-normalization's is_combining_mark; ALBERT's files put it after NFKD.
void strip_accents(AlignedText& t) {
  filter_map(t, [](uint32_t c) { return (U_GET_GC_MASK(static_cast<UChar32>(c)) & U_GC_M_MASK) != 0; }, [](uint32_t c) { return c; });
}

}  // namespace

}  // namespace runner::data
