// The WordPiece model of a tokenizer.json (BERT's): each word cut greedily into the longest
// vocabulary pieces from the left, pieces after the first looked up with the continuing prefix
// ("##"); a word with a part no piece covers, or longer than max_input_chars_per_word
// characters, is one unknown token. As tokenizers' models/wordpiece.
#pragma once
#include <optional>

#include <nlohmann/json.hpp>

#include "runtime/data/tokenizers/token_model.h"

namespace runner::data {

class WordPieceModel : public TokenModel {
 public:
  // `model`: tokenizer.json's "model" object (type "WordPiece"). Throws std::runtime_error naming the key.
  explicit WordPieceModel(const nlohmann::json& model);
  void tokenize(std::string_view word, std::vector<int64_t>& out, std::vector<std::pair<size_t, size_t>>* spans = nullptr) const override;
  const std::unordered_map<std::string, int64_t>& vocab() const override { return vocab_; }

 private:
  std::unordered_map<std::string, int64_t> vocab_;
  std::string prefix_ = "##";
  size_t max_chars_ = 100;
  std::optional<int64_t> unk_;
  std::string unk_token_;
};

}  // namespace runner::data
