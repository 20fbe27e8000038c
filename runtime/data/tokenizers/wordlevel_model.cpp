#include "runtime/data/tokenizers/wordlevel_model.h"

#include <stdexcept>

namespace runner::data {

WordLevelModel::WordLevelModel(const nlohmann::json& m) {
  const auto& vocab = m.at("vocab");
  if (!vocab.is_object()) throw std::runtime_error("WordLevel: \"vocab\" must be an object of token: id");
  for (const auto& [token, id] : vocab.items()) vocab_[token] = id.get<int64_t>();
  if (m.contains("unk_token") && m["unk_token"].is_string()) unk_token_ = m["unk_token"].get<std::string>();
}

void WordLevelModel::tokenize(std::string_view word, std::vector<int64_t>& out, std::vector<std::pair<size_t, size_t>>* spans) const {
  auto it = vocab_.find(std::string(word));
  if (it == vocab_.end()) it = vocab_.find(unk_token_);
  if (it == vocab_.end())
    throw std::runtime_error("WordLevel: a word is not in the vocabulary, which lacks the unknown token \"" + unk_token_ + "\"");
  out.push_back(it->second);
  if (spans) spans->emplace_back(0, word.size());
}

}  // namespace runner::data
