// The pre-tokenizer of a tokenizer.json: cuts normalized text into the words the BPE model
// merges one by one. ByteLevel (GPT-2's pattern, bytes to the byte-level alphabet), Split (a
// model's own pattern), Metaspace (SentencePiece: spaces become "▁", one is prepended) and
// Sequence; anything else is refused by name. Words can carry their origins in the input
// (aligned_text.h), for token offsets.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/data/tokenizers/aligned_text.h"

namespace runner {
class Regex;
}  // namespace runner

namespace runner::data {

class PreTokenizer {
 public:
  // `spec`: tokenizer.json's "pre_tokenizer" (null: the text is one word). Throws
  // std::runtime_error naming the unsupported or malformed part.
  explicit PreTokenizer(const nlohmann::json& spec);
  ~PreTokenizer();
  // Calls `word` on each word of `text`, in order, without collecting them (a corpus is one
  // call). `at_start`: `text` begins the input (Metaspace's prepend_scheme "first" prepends
  // only there). `from`: the origin of each byte of `text`, or null; the word gets its own
  // (null when `from` is).
  using Sink = std::function<void(std::string_view word, const Origin* from)>;
  void run(std::string_view text, bool at_start, const Sink& word) const { apply(0, text, nullptr, at_start, word); }
  void run(std::string_view text, const Origin* from, bool at_start, const Sink& word) const { apply(0, text, from, at_start, word); }

  enum class Behavior { kIsolated, kRemoved, kMergedWithPrevious, kMergedWithNext, kContiguous };

 private:
  struct Step {
    enum class Kind { kByteLevel, kSplit, kMetaspace } kind = Kind::kByteLevel;
    bool add_prefix_space = false;  // ByteLevel
    std::shared_ptr<Regex> regex;   // ByteLevel with use_regex, or Split's pattern
    std::string literal;            // Split on a String pattern, or Metaspace's replacement
    Behavior behavior = Behavior::kIsolated;
    bool invert = false;
    enum class Prepend { kAlways, kFirst, kNever } prepend = Prepend::kAlways;  // Metaspace
    bool split = true;                                                          // Metaspace
  };
  void load(const nlohmann::json& spec);
  // Step `k` on to the end: each piece `text` cuts into goes through step k + 1.
  void apply(size_t k, std::string_view text, const Origin* from, bool at_start, const Sink& word) const;
  // The [begin, end) pieces a Split (or Metaspace's split) cuts `text` into.
  static std::vector<std::pair<size_t, size_t>> split(const Step& step, std::string_view text);

  std::vector<Step> steps_;
};

}  // namespace runner::data
