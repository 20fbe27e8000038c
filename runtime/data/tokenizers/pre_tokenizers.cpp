#include "runtime/data/tokenizers/pre_tokenizers.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "runtime/data/tokenizers/byte_level.h"
#include "runtime/core/regex.h"

namespace runner::data {

using nlohmann::json;

namespace {

// GPT-2's pre-tokenizer pattern (ByteLevel with use_regex).
const char* const kGpt2Pattern = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

// Rust's char::is_whitespace (Unicode White_Space), one character at a time, and BERT's
// punctuation: ASCII punctuation or Unicode's P* categories (tokenizers' bert.rs).
const char* const kWhiteSpaceChar = R"([\x{9}-\x{D}\x{20}\x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}])";
const char* const kBertPunctuation = R"([!-/:-@\[-`{-~\p{P}])";

// Non-overlapping occurrences of `literal`, left to right (none for an empty one, as tokenizers).
std::vector<std::pair<size_t, size_t>> find_literal(std::string_view text, std::string_view literal) {
  std::vector<std::pair<size_t, size_t>> out;
  if (literal.empty()) return out;
  for (size_t at = text.find(literal); at != std::string_view::npos; at = text.find(literal, at + literal.size()))
    out.emplace_back(at, at + literal.size());
  return out;
}

// A single character, as tokenizers' `char` fields (Metaspace's replacement) require.
std::string one_char(const json& p, const char* key, const std::string& where) {
  if (!p.contains(key) || !p[key].is_string()) throw std::runtime_error(where + ": " + key + " is missing");
  const std::string s = p.at(key).get<std::string>();
  if (s.empty() || utf8_length(s, 0) != s.size()) throw std::runtime_error(where + ": " + key + " must be one character");
  return s;
}

}  // namespace

PreTokenizer::PreTokenizer(const json& spec) { load(spec); }
PreTokenizer::~PreTokenizer() = default;

void PreTokenizer::load(const json& p) {
  if (p.is_null()) return;
  const std::string type = p.value("type", "");
  Step s;
  if (type == "Sequence") {
    for (const auto& step : p.at("pretokenizers")) load(step);
    return;
  } else if (type == "ByteLevel") {
    s.kind = Step::Kind::kByteLevel;
    s.add_prefix_space = p.value("add_prefix_space", true);
    if (p.value("use_regex", true)) s.regex = std::make_shared<Regex>(kGpt2Pattern);
  } else if (type == "Split") {
    s.kind = Step::Kind::kSplit;
    const json& pattern = p.at("pattern");
    if (pattern.contains("Regex")) s.regex = std::make_shared<Regex>(pattern["Regex"].get<std::string>());
    else if (pattern.contains("String")) s.literal = pattern["String"].get<std::string>();
    else throw std::runtime_error("pre_tokenizer Split: pattern must be {\"Regex\": ...} or {\"String\": ...}");
    const std::string behavior = p.value("behavior", "Isolated");
    if (behavior == "Isolated") s.behavior = Behavior::kIsolated;
    else if (behavior == "Removed") s.behavior = Behavior::kRemoved;
    else if (behavior == "MergedWithPrevious") s.behavior = Behavior::kMergedWithPrevious;
    else if (behavior == "MergedWithNext") s.behavior = Behavior::kMergedWithNext;
    else if (behavior == "Contiguous") s.behavior = Behavior::kContiguous;
    else
      throw std::runtime_error("pre_tokenizer Split: behavior \"" + behavior +
                               "\" is not supported (Isolated, Removed, MergedWithPrevious, MergedWithNext, Contiguous)");
    s.invert = p.value("invert", false);
  } else if (type == "BertPreTokenizer" || type == "WhitespaceSplit") {
    // White space removed, then (BERT) each punctuation character a word of its own.
    s.kind = Step::Kind::kSplit;
    s.regex = std::make_shared<Regex>(kWhiteSpaceChar);
    s.behavior = Behavior::kRemoved;
    if (type == "BertPreTokenizer") {
      steps_.push_back(s);
      s.regex = std::make_shared<Regex>(kBertPunctuation);
      s.behavior = Behavior::kIsolated;
    }
  } else if (type == "Whitespace") {  // tokenizers' \w+|[^\w\s]+, the rest removed
    // Rust's \w and \s, which are wider than PCRE2's: marks, Join_Control, White_Space.
    s.kind = Step::Kind::kSplit;
    s.regex = std::make_shared<Regex>(
        R"([\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\x{200C}\x{200D}]+|[^\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\x{200C}\x{200D}\p{White_Space}]+)");
    s.behavior = Behavior::kRemoved;
    s.invert = true;
  } else if (type == "Metaspace") {
    s.kind = Step::Kind::kMetaspace;
    s.literal = one_char(p, "replacement", "pre_tokenizer Metaspace");
    const std::string scheme = p.value("prepend_scheme", "always");
    if (scheme == "always") s.prepend = Step::Prepend::kAlways;
    else if (scheme == "first") s.prepend = Step::Prepend::kFirst;
    else if (scheme == "never") s.prepend = Step::Prepend::kNever;
    else throw std::runtime_error("pre_tokenizer Metaspace: prepend_scheme \"" + scheme + "\" is not supported (always, first, never)");
    // Files from before prepend_scheme say add_prefix_space; false means "never", as tokenizers reads it.
    if (p.contains("add_prefix_space") && p["add_prefix_space"].is_boolean() && !p["add_prefix_space"].get<bool>()) {
      if (p.contains("prepend_scheme") && scheme != "never")
        throw std::runtime_error("pre_tokenizer Metaspace: add_prefix_space false contradicts prepend_scheme \"" + scheme + "\"");
      s.prepend = Step::Prepend::kNever;
    }
    s.split = p.value("split", true);
  } else {
    throw std::runtime_error("pre_tokenizer \"" + type + "\" is not supported yet (ByteLevel, Split, Metaspace, BertPreTokenizer, WhitespaceSplit, Whitespace, Sequence)");
  }
  steps_.push_back(std::move(s));
}

void PreTokenizer::apply(size_t k, std::string_view text, const Origin* from, bool at_start, const Sink& word) const {
  if (text.empty()) return;  // tokenizers drops empty pieces after every step
  if (k == steps_.size()) return word(text, from);
  const Step& step = steps_[k];
  AlignedText aligned;  // the step's rewritten text with its origins, when they are asked for
  if (step.kind == Step::Kind::kByteLevel) {
    std::string prefixed;
    if (step.add_prefix_space && text[0] != ' ') {
      if (from) {
        aligned = AlignedText{std::string(text), std::vector<Origin>(from, from + text.size())};
        aligned.prepend(" ");
        from = aligned.from.data();
      }
      prefixed = " " + std::string(text), text = prefixed;
    }
    auto bytes = [&](std::string_view piece, const Origin* f, bool start) {
      if (!f) return apply(k + 1, to_byte_chars(piece), nullptr, start, word);
      const AlignedText b = to_byte_chars(piece, f);
      apply(k + 1, b.text, b.from.data(), start, word);
    };
    if (!step.regex) return bytes(text, from, at_start);
    for (const auto& [b, e] : step.regex->find_all(text)) bytes(text.substr(b, e - b), from ? from + b : nullptr, at_start && b == 0);
    return;
  }
  std::string replaced;
  if (step.kind == Step::Kind::kMetaspace) {
    const bool prepend = step.prepend == Step::Prepend::kAlways || (step.prepend == Step::Prepend::kFirst && at_start);
    const bool prepended = prepend && text[0] != ' ' && text.compare(0, step.literal.size(), step.literal) != 0;
    if (from) {  // tokenizers replaces the spaces, then prepends
      aligned = AlignedText{std::string(text), std::vector<Origin>(from, from + text.size())};
      std::vector<std::pair<size_t, size_t>> spaces;
      for (size_t i = 0; i < text.size(); ++i)
        if (text[i] == ' ') spaces.emplace_back(i, i + 1);
      aligned.replace(spaces, step.literal);
      if (prepended) aligned.prepend(step.literal);
      text = aligned.text, from = aligned.from.data();
    } else {
      replaced.reserve(text.size() + text.size() / 4 + step.literal.size());
      if (prepended) replaced = step.literal;
      for (char c : text) {
        if (c == ' ') replaced += step.literal;
        else replaced += c;
      }
      text = replaced;
    }
    if (!step.split) return apply(k + 1, text, from, at_start, word);
  }
  for (const auto& [b, e] : split(step, text)) apply(k + 1, text.substr(b, e - b), from ? from + b : nullptr, at_start && b == 0, word);
}

std::vector<std::pair<size_t, size_t>> PreTokenizer::split(const Step& step, std::string_view text) {
  // Matches and the gaps between them, in order.
  struct Part {
    size_t b, e;
    bool match;
  };
  // Metaspace splits on its replacement, each one a delimiter merged with the word after it.
  const Behavior behavior = step.kind == Step::Kind::kMetaspace ? Behavior::kMergedWithNext : step.behavior;
  std::vector<Part> parts;
  size_t at = 0;
  for (const auto& [b, e] : step.regex ? step.regex->find_all(text) : find_literal(text, step.literal)) {
    if (b > at) parts.push_back({at, b, false});
    parts.push_back({b, e, true});
    at = e;
  }
  if (at < text.size()) parts.push_back({at, text.size(), false});
  if (step.invert)
    for (auto& p : parts) p.match = !p.match;
  // Spans to keep, as tokenizers' NormalizedString::split folds them: a delimiter joins its
  // neighbour only when that neighbour is not a delimiter itself.
  std::vector<std::pair<size_t, size_t>> spans;
  bool previous = false;
  if (behavior == Behavior::kMergedWithNext) {
    for (size_t i = parts.size(); i-- > 0;) {
      const Part& p = parts[i];
      if (p.match && !previous && !spans.empty()) spans.back().first = p.b;
      else spans.emplace_back(p.b, p.e);
      previous = p.match;
    }
    std::reverse(spans.begin(), spans.end());
  } else {
    for (const Part& p : parts) {
      if (behavior == Behavior::kRemoved && p.match) continue;
      const bool join = !spans.empty() && ((behavior == Behavior::kMergedWithPrevious && p.match && !previous) ||
                                           (behavior == Behavior::kContiguous && p.match == previous));
      if (join) spans.back().second = p.e;
      else spans.emplace_back(p.b, p.e);
      previous = p.match;
    }
  }
  return spans;
}

}  // namespace runner::data
