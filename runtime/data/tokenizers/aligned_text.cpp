#include "runtime/data/tokenizers/aligned_text.h"

#include "runtime/data/tokenizers/byte_level.h"

namespace runner::data {

AlignedText AlignedText::of(std::string_view text, size_t shift) {
  AlignedText t{std::string(text), {}};
  t.from.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const size_t n = utf8_length(text, i);
    t.from.insert(t.from.end(), n, Origin{shift + i, shift + i + n});
    i += n;
  }
  return t;
}

AlignedText AlignedText::slice(size_t b, size_t e) const {
  return {text.substr(b, e - b), std::vector<Origin>(from.begin() + b, from.begin() + e)};
}

void AlignedText::prepend(std::string_view s) {
  if (text.empty()) return;
  text.insert(0, s);
  from.insert(from.begin(), s.size(), from[0]);
}

void AlignedText::replace(const std::vector<std::pair<size_t, size_t>>& matches, std::string_view content) {
  if (matches.empty()) return;
  std::string out;
  std::vector<Origin> out_from;
  out.reserve(text.size() + text.size() / 4);
  out_from.reserve(out.capacity());
  size_t at = 0;
  for (const auto& [b, e] : matches) {
    out.append(text, at, b - at);
    out_from.insert(out_from.end(), from.begin() + at, from.begin() + b);
    // An empty match inserts after what is already written (tokenizers' alignments[idx - 1]).
    const Origin o = e > b ? from[e - 1] : !out_from.empty() ? out_from.back() : Origin{from[0].begin, from[0].begin};
    out.append(content);
    out_from.insert(out_from.end(), content.size(), o);
    at = e;
  }
  out.append(text, at, std::string::npos);
  out_from.insert(out_from.end(), from.begin() + at, from.end());
  text = std::move(out);
  from = std::move(out_from);
}

void AlignedText::transform(const std::vector<Change>& chars, size_t removed_at_start) {
  std::string out;
  std::vector<Origin> out_from;
  out.reserve(text.size());
  out_from.reserve(text.size());
  size_t at = 0;  // the next character of the old text
  auto skip = [&](size_t n) {
    for (; n > 0 && at < text.size(); --n) at += utf8_length(text, at);
  };
  skip(removed_at_start);
  const Origin none = from.empty() ? Origin{} : Origin{from[0].begin, from[0].begin};
  for (const Change& c : chars) {
    Origin o;
    if (c.change > 0) {
      o = at == 0 ? none : from[at - 1];
    } else {
      o = at < text.size() ? from[at] : none;
      skip(1 + static_cast<size_t>(-c.change));
    }
    const size_t before = out.size();
    append_utf8(out, c.code_point);
    out_from.insert(out_from.end(), out.size() - before, o);
  }
  text = std::move(out);
  from = std::move(out_from);
}

AlignedText to_byte_chars(std::string_view text, const Origin* from) {
  AlignedText t;
  t.text.reserve(text.size() * 2);
  t.from.reserve(text.size() * 2);
  for (size_t i = 0; i < text.size(); ++i) {
    const std::string& c = byte_char(static_cast<uint8_t>(text[i]));
    t.text += c;
    t.from.insert(t.from.end(), c.size(), from[i]);
  }
  return t;
}

}  // namespace runner::data
