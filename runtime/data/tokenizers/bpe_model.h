// The BPE model of a tokenizer.json: a vocabulary, ranked merges, and the word-level merge
// loop (lowest rank first, leftmost on ties, as `tokenizers` does), with a per-word cache so
// a corpus's frequent words are merged once.
#pragma once
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

namespace runner::data {

class BpeModel {
 public:
  // `model`: tokenizer.json's "model" object (type "BPE"). Throws std::runtime_error naming the key.
  explicit BpeModel(const nlohmann::json& model);
  // The ids of one pre-tokenized word (already in the byte-level alphabet when the
  // pre-tokenizer is ByteLevel), appended to `out`.
  void tokenize(std::string_view word, std::vector<int64_t>& out) const;
  const std::unordered_map<std::string, int64_t>& vocab() const { return vocab_; }

 private:
  std::vector<int64_t> merge_word(std::string_view word) const;

  std::unordered_map<std::string, int64_t> vocab_;
  std::unordered_map<std::string, int> ranks_;  // "left\\x00right" -> rank
  std::optional<int64_t> unk_;
  bool byte_fallback_ = false, ignore_merges_ = false, fuse_unk_ = false;
  mutable std::mutex cache_mutex_;
  mutable std::unordered_map<std::string, std::vector<int64_t>> cache_;
};

}  // namespace runner::data
