#include "runtime/data/tokenizers/normalizers.h"

#include <memory>
#include <stdexcept>

#include <unicode/normalizer2.h>
#include <unicode/unistr.h>

#include "runtime/core/regex.h"

namespace runner::data {

using nlohmann::json;

struct Normalizer::Step {
  enum class Kind { kUnicode, kPrepend, kReplace } kind = Kind::kUnicode;
  std::string form;             // kUnicode: NFC, NFKC, NFD or NFKD
  std::string text;             // kPrepend: what goes before; kReplace: what replaces a match
  std::string literal;          // kReplace with a String pattern
  std::shared_ptr<Regex> regex;  // kReplace with a Regex pattern
};

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
  } else {
    throw std::runtime_error("normalizer \"" + type + "\" is not supported yet (NFC, NFKC, NFD, NFKD, Prepend, Replace, Sequence)");
  }
  steps_.push_back(std::move(s));
}

std::string Normalizer::run(std::string_view input) const {
  std::string text(input);
  for (const Step& s : steps_) {
    if (s.kind == Step::Kind::kPrepend) {
      if (!text.empty()) text.insert(0, s.text);  // tokenizers leaves an empty text empty
    } else if (s.kind == Step::Kind::kReplace) {
      std::string out;
      out.reserve(text.size() + text.size() / 4);
      size_t at = 0;
      auto replace = [&](size_t b, size_t e) {
        out.append(text, at, b - at);
        out += s.text;
        at = e;
      };
      if (s.regex) {
        for (const auto& [b, e] : s.regex->find_all(text)) replace(b, e);
      } else {
        for (size_t b = text.find(s.literal); b != std::string::npos; b = text.find(s.literal, at)) replace(b, b + s.literal.size());
      }
      out.append(text, at, std::string::npos);
      text = std::move(out);
    } else {
      UErrorCode status = U_ZERO_ERROR;
      const icu::Normalizer2* n = s.form == "NFC"    ? icu::Normalizer2::getNFCInstance(status)
                                  : s.form == "NFKC" ? icu::Normalizer2::getNFKCInstance(status)
                                  : s.form == "NFD"  ? icu::Normalizer2::getNFDInstance(status)
                                                     : icu::Normalizer2::getNFKDInstance(status);
      icu::UnicodeString normalized = U_SUCCESS(status) ? n->normalize(icu::UnicodeString::fromUTF8(text), status) : icu::UnicodeString();
      if (U_FAILURE(status)) throw std::runtime_error(s.form + " normalization failed");
      text.clear();
      normalized.toUTF8String(text);
    }
  }
  return text;
}

}  // namespace runner::data
