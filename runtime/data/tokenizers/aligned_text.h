// Text a tokenizer is rewriting (normalizers, pre-tokenizers), with where each of its bytes came
// from in the input: the alignments of tokenizers' NormalizedString, from which its
// Encoding.offsets come. Every edit follows tokenizers' transform(): a character that replaces
// one keeps that one's origin, an inserted character takes the origin of the character before
// it (a prepended one, the first character's), removed characters leave no trace. A token made
// of bytes [b, e) of such a text came from origin(b, e) of the input.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace runner::data {

struct Origin {  // [begin, end) bytes of the input
  size_t begin = 0, end = 0;
};

struct AlignedText {
  std::string text;
  std::vector<Origin> from;  // one per byte of text

  // `text` unchanged: each byte comes from its own character, at `shift` + its offset.
  static AlignedText of(std::string_view text, size_t shift = 0);
  AlignedText slice(size_t b, size_t e) const;
  Origin origin(size_t b, size_t e) const { return {from[b].begin, from[e - 1].end}; }  // e > b

  // NormalizedString::prepend: nothing for an empty text.
  void prepend(std::string_view s);
  // NormalizedString::replace: each [begin, end) match (left to right, not overlapping) becomes
  // `content`, which takes the origin of the match's last byte.
  void replace(const std::vector<std::pair<size_t, size_t>>& matches, std::string_view content);
  // NormalizedString::transform: the new text as code points, each with its change: 0 replaces
  // the next character, -n replaces it and removes the n after it, 1 is inserted.
  // `removed_at_start` characters are dropped first.
  struct Change {
    uint32_t code_point;
    int change;
  };
  void transform(const std::vector<Change>& chars, size_t removed_at_start = 0);
};

// The bytes of `text` as GPT-2's byte-level characters (byte_level.h), each with the origin of
// the byte it stands for.
AlignedText to_byte_chars(std::string_view text, const Origin* from);

}  // namespace runner::data
