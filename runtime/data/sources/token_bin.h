// data.token_bin: nanoGPT's train.bin / val.bin — token ids as raw little-endian uint16
// (GPT-2's 50257 ids fit) or uint32, no header — as language-model windows (windows.h).
// The file is memory-mapped read-only, so it may be larger than RAM. `runner prepare-data`
// writes such files with a small JSON header beside them (<file>.json: dtype, num_tokens,
// vocab_size, eos_token_id, ...), so nanoGPT's np.memmap still reads the tokens unchanged
// and runner takes the dtype from the header and notices a truncated file.
#pragma once
#include <memory>
#include <string>

#include "runtime/data/sources/mapped_file.h"
#include "runtime/data/sources/windows.h"

namespace runner::data {

struct TokenBinOptions {
  std::string path;
  std::string dtype;  // "uint16" | "uint32"; "" = the header's, else uint16
  WindowOptions windows;         // block_size is required
};

class TokenBinDataset : public TokenWindowDataset {
 public:
  TokenBinDataset(std::unique_ptr<MappedFile> file, int bytes_per_token, WindowPlan plan, std::string origin);
  int64_t num_tokens() const { return static_cast<int64_t>(file_->size()) / bytes_per_token_; }

 protected:
  void read_tokens(int64_t offset, int64_t count, int64_t* out) const override;

 private:
  std::unique_ptr<MappedFile> file_;
  int bytes_per_token_;
};

// The header prepare-data writes: the token file's path + ".json".
std::string token_header_path(const std::string& token_file);

// A DataError names the file when it is missing, empty, not a whole number of tokens
// (truncated, or the wrong dtype) or shorter than one window.
std::shared_ptr<const TokenBinDataset> load_token_bin(const TokenBinOptions& options);

}  // namespace runner::data
