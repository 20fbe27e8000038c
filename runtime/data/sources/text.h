// data.text: a plain-text file as language-model windows (see windows.h), with a
// character-level or byte-level vocabulary.
//
// "chars": the vocabulary is the sorted set of distinct Unicode code points of the whole
// file, whatever `range` selects, so a train range {0, 0.9} and a validation range
// {0.9, 1} of the same file agree on every id (as nanoGPT's shakespeare_char does).
// "bytes": ids are the raw bytes 0..255, for any encoding.
// A path to an HF tokenizer.json (ending in .json): the file's text encoded with it, without
// the template's special tokens (one stream of tokens, as nanoGPT's prepare scripts make).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/data/sources/windows.h"
#include "runtime/data/tokenizers/hf_tokenizer.h"

namespace runner::data {

struct TextOptions {
  std::string path;
  std::string tokenizer = "chars";  // "chars" | "bytes" | path/to/tokenizer.json
  double range_begin = 0.0;         // fractions of the file's tokens: [begin, end)
  double range_end = 1.0;
  WindowOptions windows;            // block_size is required
};

class TextDataset : public TokenWindowDataset {
 public:
  TextDataset(std::vector<int32_t> tokens, std::vector<uint32_t> vocab, bool bytes, WindowPlan plan, std::string origin,
              std::shared_ptr<const HfTokenizer> hf = nullptr);
  int64_t vocab_size() const { return hf_ ? hf_->vocab_size() : bytes_ ? 256 : static_cast<int64_t>(vocab_.size()); }
  // ids → text: UTF-8 for "chars", the raw bytes for "bytes". An id outside the vocabulary
  // is a DataError.
  std::string decode(const std::vector<int64_t>& ids) const;
  // text → ids; a character outside the vocabulary (or invalid UTF-8) is a DataError.
  std::vector<int64_t> encode(const std::string& text) const;
  int64_t num_tokens() const { return static_cast<int64_t>(tokens_.size()); }

 protected:
  void read_tokens(int64_t offset, int64_t count, int64_t* out) const override;

 private:
  std::vector<int32_t> tokens_;   // the range's ids
  std::vector<uint32_t> vocab_;   // id → code point ("chars")
  bool bytes_;
  std::shared_ptr<const HfTokenizer> hf_;  // a tokenizer.json
};

// A DataError names the file for a missing or empty file, non-UTF-8 text with "chars"
// (file:line and byte offset), a bad range or too few tokens for one window.
std::shared_ptr<const TextDataset> load_text(const TextOptions& options);

}  // namespace runner::data
