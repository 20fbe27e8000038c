// The BPE model of a tokenizer.json: a vocabulary, ranked merges, and the word-level merge
// loop of `tokenizers` (characters to ids first, with SentencePiece-style byte fallback or the
// unknown token; then the lowest-ranked pair merged first, leftmost on ties), with a per-word
// cache so a corpus's frequent words are merged once. Token offsets inside a word are tokenizers'
// too: each symbol's byte length, summed as pieces merge, laid end to end.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/data/tokenizers/token_model.h"
#include "runtime/data/tokenizers/word_cache.h"

namespace runner::data {

class BpeModel : public TokenModel {
 public:
  // `model`: tokenizer.json's "model" object (type "BPE"). Throws std::runtime_error naming the key.
  explicit BpeModel(const nlohmann::json& model);
  // The ids of one pre-tokenized word (already in the byte-level alphabet when the
  // pre-tokenizer is ByteLevel), appended to `out`; `spans`, when given, gets each token's
  // [begin, end) bytes in `word`.
  void tokenize(std::string_view word, std::vector<int64_t>& out, std::vector<std::pair<size_t, size_t>>* spans = nullptr) const override;
  const std::unordered_map<std::string, int64_t>& vocab() const override { return vocab_; }

 private:
  struct Merge {
    int32_t rank;
    int64_t id;  // the merged token
  };
  // `lengths`, when given: each result token's length in bytes of `word`.
  std::vector<int64_t> merge_word(std::string_view word, std::vector<uint32_t>* lengths = nullptr) const;
  void tokenize_ids(std::string_view word, std::vector<int64_t>& out) const;
  // Spans of out[first...] from each token's length; false where that is not known (an unknown
  // token covers any number of characters) or does not add up to `word`.
  bool spans_from_lengths(std::string_view word, const std::vector<int64_t>& out, size_t first,
                          std::vector<std::pair<size_t, size_t>>& spans) const;
  void tokenize_cached(std::string_view word, std::vector<int64_t>& out) const;
  bool cut_between(uint32_t left, uint32_t right) const;

  std::unordered_map<std::string, int64_t> vocab_;
  std::unordered_map<uint64_t, Merge> merges_;  // (left id << 32 | right id) -> rank and result
  std::array<int64_t, 256> byte_ids_;           // <0xXX> tokens, -1 where absent
  std::vector<uint32_t> token_bytes_;           // by id: the bytes a token stands for, 0 unknown (empty: ids too sparse)
  std::optional<int64_t> unk_;
  bool byte_fallback_ = false, ignore_merges_ = false, fuse_unk_ = false;
  // For words too long to cache (SentencePiece files without a pre-tokenizer make the whole
  // text one word): characters that are tokens, and character pairs some token contains.
  std::unordered_set<uint32_t> char_tokens_;
  std::unordered_set<uint64_t> inner_pairs_;
  WordCache cache_;
};

}  // namespace runner::data
