// The Unigram model of a tokenizer.json (SentencePiece's unigram language model: T5, ALBERT,
// XLM-RoBERTa, mBART): each word cut into the vocabulary pieces whose scores (log
// probabilities) sum highest, by Viterbi over the word's bytes. A character no piece starts
// with is the unknown piece, scored 10 below the lowest piece; runs of unknown pieces are one
// token; with byte_fallback an unknown token is its bytes' <0xXX> pieces instead. As
// tokenizers' models/unigram (its optimised encoder, the one tokenizers uses).
#pragma once
#include <optional>

#include <nlohmann/json.hpp>

#include "runtime/data/tokenizers/token_model.h"
#include "runtime/data/tokenizers/word_cache.h"

namespace runner::data {

class UnigramModel : public TokenModel {
 public:
  // `model`: tokenizer.json's "model" object (type "Unigram"). Throws std::runtime_error naming the key.
  explicit UnigramModel(const nlohmann::json& model);
  UnigramModel(const UnigramModel&) = delete;  // sorted_ views vocab_'s keys
  UnigramModel& operator=(const UnigramModel&) = delete;
  void tokenize(std::string_view word, std::vector<int64_t>& out, std::vector<std::pair<size_t, size_t>>* spans = nullptr) const override;
  const std::unordered_map<std::string, int64_t>& vocab() const override { return vocab_; }
  std::vector<std::pair<std::string, int64_t>> tokens() const override;

 private:
  void segment(std::string_view word, std::vector<int64_t>& out, std::vector<std::pair<size_t, size_t>>* spans) const;
  std::vector<std::pair<std::string, double>> pieces_;  // by id
  std::unordered_map<std::string, int64_t> vocab_;      // a piece listed twice maps to its last id, as tokenizers'
  std::vector<std::pair<std::string_view, int64_t>> sorted_;  // distinct pieces in byte order, for prefix search
  size_t longest_ = 0;                                   // bytes of the longest piece
  std::optional<int64_t> unk_;
  bool byte_fallback_ = false;
  double unk_score_ = 0;
  // A corpus's frequent words are cut once (ids only; offsets are asked for per text).
  WordCache cache_;
};

}  // namespace runner::data
