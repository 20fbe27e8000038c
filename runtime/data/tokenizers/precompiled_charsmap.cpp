#include "runtime/data/tokenizers/precompiled_charsmap.h"

#include <algorithm>
#include <memory>
#include <stdexcept>

#include <unicode/brkiter.h>
#include <unicode/utext.h>

#include "runtime/data/tokenizers/byte_level.h"

namespace runner::data {

namespace {

// darts-clone's unit: a label (with bit 31 set on leaves' value units), a leaf flag, an offset.
bool has_leaf(uint32_t unit) { return (unit >> 8) & 1; }
uint32_t value(uint32_t unit) { return unit & 0x7FFFFFFFu; }
uint32_t label(uint32_t unit) { return unit & 0x800000FFu; }
size_t offset(uint32_t unit) { return static_cast<size_t>(unit >> 10) << ((unit & (1u << 9)) >> 6); }

uint32_t read_u32(std::string_view b, size_t at) {
  return static_cast<uint32_t>(static_cast<unsigned char>(b[at])) | static_cast<uint32_t>(static_cast<unsigned char>(b[at + 1])) << 8 |
         static_cast<uint32_t>(static_cast<unsigned char>(b[at + 2])) << 16 | static_cast<uint32_t>(static_cast<unsigned char>(b[at + 3])) << 24;
}

// One ICU grapheme-cluster iterator per thread (they are not thread-safe; data workers tokenize).
icu::BreakIterator& graphemes() {
  thread_local std::unique_ptr<icu::BreakIterator> it = [] {
    UErrorCode status = U_ZERO_ERROR;
    std::unique_ptr<icu::BreakIterator> made(icu::BreakIterator::createCharacterInstance(icu::Locale::getRoot(), status));
    if (U_FAILURE(status) || !made) throw std::runtime_error("Precompiled: grapheme clusters are unavailable (ICU data)");
    return made;
  }();
  return *it;
}

}  // namespace

PrecompiledCharsMap::PrecompiledCharsMap(std::string_view blob) {
  const auto bad = [](const std::string& why) { return std::runtime_error("normalizer Precompiled: precompiled_charsmap " + why); };
  if (blob.size() < 4) throw bad("is shorter than its 4-byte header");
  const uint32_t trie_bytes = read_u32(blob, 0);
  if (trie_bytes % 4 != 0 || trie_bytes == 0 || 4 + static_cast<size_t>(trie_bytes) > blob.size())
    throw bad("has a trie size (" + std::to_string(trie_bytes) + " bytes) that does not fit its " + std::to_string(blob.size()) + " bytes");
  units_.resize(trie_bytes / 4);
  for (size_t i = 0; i < units_.size(); ++i) units_[i] = read_u32(blob, 4 + 4 * i);
  replacements_ = std::string(blob.substr(4 + trie_bytes));
}

// The replacement of the shortest rule that begins `chunk` (darts-clone's common prefix search,
// first result, as tokenizers takes it).
std::optional<std::string_view> PrecompiledCharsMap::replacement(std::string_view chunk) const {
  size_t node = offset(units_[0]);
  for (const char ch : chunk) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == 0) break;
    node ^= c;
    if (node >= units_.size()) return std::nullopt;
    const uint32_t unit = units_[node];
    if (label(unit) != c) return std::nullopt;
    node ^= offset(unit);
    if (node >= units_.size()) return std::nullopt;
    if (has_leaf(unit)) {
      const size_t at = value(units_[node]);
      if (at > replacements_.size()) return std::nullopt;
      const size_t end = replacements_.find('\0', at);
      return std::string_view(replacements_).substr(at, (end == std::string::npos ? replacements_.size() : end) - at);
    }
  }
  return std::nullopt;
}

void PrecompiledCharsMap::apply(AlignedText& t) const {
  std::vector<AlignedText::Change> out;
  if (rewrite(t.text, out)) t.transform(out);
}

std::string PrecompiledCharsMap::apply(std::string_view text) const {
  std::vector<AlignedText::Change> out;
  if (!rewrite(text, out)) return std::string(text);
  std::string s;
  s.reserve(text.size() + text.size() / 4);
  for (const auto& c : out) append_utf8(s, c.code_point);
  return s;
}

bool PrecompiledCharsMap::rewrite(std::string_view text, std::vector<AlignedText::Change>& out) const {
  out.reserve(text.size());
  bool modified = false;
  // tokenizers' replace(): the new characters each replace one; extra ones are inserted (the
  // last ones); fewer remove the difference after the last character written so far.
  auto replace = [&](std::string_view old_part, std::string_view new_part) {
    modified = true;
    int64_t old_count = 0, new_count = 0;
    for (size_t i = 0; i < old_part.size(); i += utf8_length(old_part, i)) ++old_count;
    for (size_t i = 0; i < new_part.size();) {
      const size_t n = utf8_length(new_part, i);
      out.push_back({utf8_code_point(new_part, i, n), 0});
      ++new_count;
      i += n;
    }
    const int64_t diff = new_count - old_count;
    if (diff > 0) {
      for (int64_t k = 0; k < diff; ++k) out[out.size() - 1 - static_cast<size_t>(k)].change = 1;
    } else if (diff < 0 && !out.empty()) {
      out.back().change += static_cast<int>(diff);
    }
  };
  auto cluster = [&](std::string_view cluster) {
    if (cluster.size() < 6) {
      if (auto norm = replacement(cluster)) return replace(cluster, *norm);
    }
    for (size_t i = 0; i < cluster.size();) {
      const size_t n = utf8_length(cluster, i);
      const std::string_view part = cluster.substr(i, n);
      if (auto norm = replacement(part)) replace(part, *norm);
      else out.push_back({utf8_code_point(cluster, i, n), 0});
      i += n;
    }
  };
  // ASCII text needs no segmenter: each character is a cluster, but for CR LF.
  if (std::all_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; })) {
    for (size_t i = 0; i < text.size();) {
      const size_t n = text.compare(i, 2, "\r\n") == 0 ? 2 : 1;
      cluster(text.substr(i, n));
      i += n;
    }
    return modified;
  }
  UErrorCode status = U_ZERO_ERROR;
  UText* ut = utext_openUTF8(nullptr, text.data(), static_cast<int64_t>(text.size()), &status);
  icu::BreakIterator& it = graphemes();
  it.setText(ut, status);
  if (U_FAILURE(status)) {
    utext_close(ut);
    throw std::runtime_error("Precompiled: cannot segment the text into grapheme clusters");
  }
  for (int32_t b = it.first(), e = it.next(); e != icu::BreakIterator::DONE; b = e, e = it.next())
    cluster(text.substr(static_cast<size_t>(b), static_cast<size_t>(e - b)));
  utext_close(ut);  // the iterator holds its own shallow clone, never read again before the next setText
  return modified;
}

}  // namespace runner::data
