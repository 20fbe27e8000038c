#include "runtime/data/tokenizers/wordpiece_model.h"

#include <stdexcept>

#include "runtime/data/tokenizers/byte_level.h"

namespace runner::data {

WordPieceModel::WordPieceModel(const nlohmann::json& m) {
  for (const auto& [token, id] : m.at("vocab").items()) vocab_[token] = id.get<int64_t>();
  prefix_ = m.value("continuing_subword_prefix", std::string("##"));
  max_chars_ = m.value("max_input_chars_per_word", size_t{100});
  unk_token_ = m.value("unk_token", std::string("[UNK]"));
  if (auto it = vocab_.find(unk_token_); it != vocab_.end()) unk_ = it->second;
}

void WordPieceModel::tokenize(std::string_view word, std::vector<int64_t>& out, std::vector<std::pair<size_t, size_t>>* spans) const {
  auto unknown = [&] {
    if (!unk_) throw std::runtime_error("WordPiece: a word needs the unknown token \"" + unk_token_ + "\", which the vocabulary lacks");
    out.push_back(*unk_);
    if (spans) spans->emplace_back(0, word.size());
  };
  size_t chars = 0;
  for (size_t i = 0; i < word.size(); i += utf8_length(word, i)) ++chars;
  if (chars > max_chars_) return unknown();
  const size_t first = out.size(), first_span = spans ? spans->size() : 0;
  std::string piece;
  for (size_t start = 0; start < word.size();) {
    size_t end = word.size();
    int64_t id = -1;
    while (start < end) {
      piece.assign(start > 0 ? prefix_ : std::string());
      piece.append(word.substr(start, end - start));
      if (auto it = vocab_.find(piece); it != vocab_.end()) {
        id = it->second;
        break;
      }
      do --end;  // one character shorter
      while (end > start && (static_cast<unsigned char>(word[end]) & 0xC0) == 0x80);
    }
    if (id < 0) {  // a part no piece covers: the whole word is unknown
      out.resize(first);
      if (spans) spans->resize(first_span);
      return unknown();
    }
    out.push_back(id);
    if (spans) spans->emplace_back(start, end);
    start = end;
  }
}

}  // namespace runner::data
