// data.stream: an iterable dataset (HF datasets' IterableDataset with streaming=True) over
// shards read one at a time, records tokenized and packed into block_size windows on the fly.
// It has no length and no random access; the Trainer reads it in order through a
// StreamLoader (stream_loader.h), which splits it over ranks and dataloader workers.
//
// Per epoch e the shard order is a permutation seeded by (seed, e), and each reader's shuffle
// buffer is reseeded from (seed, e, reader) — HF's shuffle(seed, buffer_size) + set_epoch.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/data/stream/records.h"
#include "runtime/data/tokenizers/hf_tokenizer.h"

namespace runner::data {

struct StreamOptions {
  std::vector<std::string> sources;  // files, folders and globs; expanded and sorted once
  std::string format;                // "text" | "jsonl" | "parquet" | "arrow" | "token_bin"; "" = from the first shard's extension
  std::string column = "text";       // the JSONL key / Parquet column holding each record's text
  int64_t buffer_size = 1000;        // shuffle buffer per reader; 0 or 1 = the shards' order
  int64_t seed = 42;
  std::string tokenizer = "bytes";   // "bytes" (ids 0..255) | path/to/tokenizer.json
  int64_t block_size = 0;            // tokens per example (input_ids and labels), required
  int64_t eos_token_id = -1;         // appended after each record's tokens; -1 = nothing
  // token_bin: "uint16" | "uint32"; "" = the <shard>.json header's (runner prepare-data), else uint16.
  // Records are block_size tokens (the shuffle buffer shuffles windows); no tokenizer, no eos.
  std::string dtype;
};

class Stream {
 public:
  // Expands the sources and checks the first shard's first record (format, column) now, so a
  // bad recipe fails while it loads; a DataError names the file and key.
  explicit Stream(StreamOptions options);
  const StreamOptions& options() const { return options_; }
  const std::vector<std::string>& shards() const { return shards_; }
  // Epoch e's shard order: a permutation of 0..shards-1 seeded by (seed, e).
  std::vector<int64_t> shard_order(int64_t epoch) const;
  std::vector<int64_t> encode(const std::string& record) const;
  // 256 for bytes, the tokenizer's, or a token file header's vocab_size; a RecipeError for a
  // token file without one.
  int64_t vocab_size() const;
  const RecordFormat& record_format() const { return records_; }
  std::string describe() const { return "data.stream(" + (shards_.size() == 1 ? shards_[0] : std::to_string(shards_.size()) + " shards") + ")"; }

 private:
  void read_token_header();
  StreamOptions options_;
  std::vector<std::string> shards_;
  std::shared_ptr<const HfTokenizer> tokenizer_;  // null = bytes
  RecordFormat records_;
  int64_t header_vocab_ = -1;  // token_bin: the header's vocab_size
};

using StreamPtr = std::shared_ptr<const Stream>;

}  // namespace runner::data
