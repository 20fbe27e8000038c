// The normalizer of a tokenizer.json, applied to the text between added tokens before the
// pre-tokenizer: Unicode normal forms (NFC, NFKC, NFD, NFKD, by ICU), Prepend and Replace
// (SentencePiece files: "▁" before the text, spaces to "▁"), Lowercase, Strip, StripAccents, BertNormalizer
// (BERT's WordPiece files), Precompiled (SentencePiece's charsmaps: T5, ALBERT, XLM-RoBERTa) and Sequence;
// anything else is refused by name. run() gives the text; the AlignedText overload also keeps
// where each byte came from, as tokenizers' NormalizedString does, for token offsets.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/data/tokenizers/aligned_text.h"

namespace runner::data {

class Normalizer {
 public:
  // `spec`: tokenizer.json's "normalizer" (null: none). Throws std::runtime_error naming the
  // unsupported or malformed part.
  explicit Normalizer(const nlohmann::json& spec);
  ~Normalizer();
  bool empty() const { return steps_.empty(); }
  std::string run(std::string_view text) const;
  void run(AlignedText& text) const;  // the same text, with its origins carried along
  struct Step;  // one normalizer of the chain (normalizers.cpp)

 private:
  void load(const nlohmann::json& spec);
  std::vector<Step> steps_;
};

}  // namespace runner::data
