// An HF `tokenizer.json` (the `tokenizers` library's format) loaded and run in C++: byte-level
// BPE as GPT-2, Llama 3 and Qwen 2 use it. Pipeline, as in `tokenizers`: added tokens are
// split off first (they are never cut), the pre-tokenizer (ByteLevel with GPT-2's pattern,
// Split with a model's own pattern, or a Sequence) cuts the rest into words, BPE merges each
// word, the post-processor adds the template's special tokens; decoding maps byte-level
// characters back to bytes. Components this loader does not know are refused by name.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace runner::data {

class HfTokenizer {
 public:
  // DataError naming the file and the unsupported or malformed part.
  static std::shared_ptr<HfTokenizer> load(const std::string& path);
  ~HfTokenizer();

  // `add_special_tokens`: apply the post-processor's template (HF's default: true).
  std::vector<int64_t> encode(std::string_view text, bool add_special_tokens = true) const;
  std::string decode(const std::vector<int64_t>& ids, bool skip_special_tokens = false) const;
  int64_t vocab_size() const;  // the model's vocabulary plus added tokens (HF get_vocab_size(with_added_tokens=True))
  int64_t token_to_id(const std::string& token) const;  // -1 when absent
  std::string id_to_token(int64_t id) const;            // "" when absent

  struct Impl;

 private:
  explicit HfTokenizer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace runner::data
