// The model of a tokenizer.json: what turns one pre-tokenized word into ids (BPE, WordPiece, Unigram, WordLevel).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace runner::data {

class TokenModel {
 public:
  virtual ~TokenModel() = default;
  // The ids of one word, appended to `out`; `spans`, when given, gets each token's
  // [begin, end) bytes in `word`.
  virtual void tokenize(std::string_view word, std::vector<int64_t>& out, std::vector<std::pair<size_t, size_t>>* spans = nullptr) const = 0;
  virtual const std::unordered_map<std::string, int64_t>& vocab() const = 0;
  // Every (token, id), for decoding: vocab()'s, unless one token has several ids (Unigram's list).
  virtual std::vector<std::pair<std::string, int64_t>> tokens() const { return {vocab().begin(), vocab().end()}; }
};

}  // namespace runner::data
