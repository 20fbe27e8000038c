// SentencePiece's precompiled normalization rules (a model's normalizer_spec.precompiled_charsmap,
// tokenizer.json's Precompiled normalizer: nmt_nfkc for T5, ALBERT, XLM-RoBERTa): a darts-clone
// double-array trie of source strings over a pool of NUL-terminated replacements. Applied as
// tokenizers applies it: per extended grapheme cluster, the whole cluster when it is under 6
// bytes and a rule starts it (the shortest such rule wins, whatever follows it in the cluster),
// otherwise character by character.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/data/tokenizers/aligned_text.h"

namespace runner::data {

class PrecompiledCharsMap {
 public:
  // `blob`: the charsmap's bytes (a u32 trie size, the trie, the replacements). Throws
  // std::runtime_error when they are not that.
  explicit PrecompiledCharsMap(std::string_view blob);
  // Rewrites `text` with its origins (tokenizers' NormalizedString::transform).
  void apply(AlignedText& text) const;
  std::string apply(std::string_view text) const;  // the same text, without origins

 private:
  // The new text as characters with their changes (AlignedText::transform's); false: unchanged.
  bool rewrite(std::string_view text, std::vector<AlignedText::Change>& out) const;
  std::optional<std::string_view> replacement(std::string_view chunk) const;
  std::vector<uint32_t> units_;
  std::string replacements_;
};

}  // namespace runner::data
