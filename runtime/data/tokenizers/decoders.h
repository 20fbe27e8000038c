// The decoder of a tokenizer.json: turns the tokens of some ids back into text, as a chain of
// steps over the token list the way `tokenizers` runs it. ByteLevel (byte-level characters back
// to bytes), and for SentencePiece files Replace ("▁" back to " "), ByteFallback (<0xXX>
// tokens back to bytes), Fuse, Strip and Metaspace; Sequence chains them. Anything else is
// refused by name; without a decoder the tokens are joined with spaces, as in tokenizers.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace runner::data {

class Decoder {
 public:
  // `spec`: tokenizer.json's "decoder" (null: none). Throws std::runtime_error naming the
  // unsupported or malformed part.
  explicit Decoder(const nlohmann::json& spec);
  ~Decoder();
  std::string run(std::vector<std::string> tokens) const;

 private:
  struct Step;
  void load(const nlohmann::json& spec);
  std::vector<Step> steps_;
  bool none_ = true;  // no decoder at all (an empty Sequence is a decoder)
};

}  // namespace runner::data
