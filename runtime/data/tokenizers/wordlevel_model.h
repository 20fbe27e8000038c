// The WordLevel model of a tokenizer.json (tokenizers' WordLevelTrainer output: a word per
// token): each pre-tokenized word is its vocabulary id, or unk_token's ("<unk>" by default); a
// word neither covers is an error, as in tokenizers. As tokenizers' models/wordlevel.
#pragma once
#include <optional>

#include <nlohmann/json.hpp>

#include "runtime/data/tokenizers/token_model.h"

namespace runner::data {

class WordLevelModel : public TokenModel {
 public:
  // `model`: tokenizer.json's "model" object (type "WordLevel"). Throws std::runtime_error naming the key.
  explicit WordLevelModel(const nlohmann::json& model);
  void tokenize(std::string_view word, std::vector<int64_t>& out, std::vector<std::pair<size_t, size_t>>* spans = nullptr) const override;
  const std::unordered_map<std::string, int64_t>& vocab() const override { return vocab_; }

 private:
  std::unordered_map<std::string, int64_t> vocab_;
  std::string unk_token_ = "<unk>";
};

}  // namespace runner::data
