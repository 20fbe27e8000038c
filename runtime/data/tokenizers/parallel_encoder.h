// Documents tokenized on several threads and handed back in the order they came, so what
// prepare-data writes is the same for any thread count. Documents are gathered into batches
// of about a MiB of text; at most two batches per thread, and at most 256 MiB of text (one
// batch, however large, when alone), are in flight: memory stays bounded whatever the
// corpus's size, unless one document is larger than that.
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <string>
#include <vector>

#include "runtime/data/tokenizers/hf_tokenizer.h"

namespace runner::data {

class ParallelEncoder {
 public:
  // `emit(ids, documents)`: the ids of `documents` consecutive documents, each followed by
  // `eos_id` when it is >= 0, called on the calling thread in input order.
  using Emit = std::function<void(const std::vector<int64_t>& ids, int64_t documents)>;
  ParallelEncoder(const HfTokenizer& tokenizer, bool add_special_tokens, int64_t eos_id, int threads, Emit emit);
  ParallelEncoder(const ParallelEncoder&) = delete;
  ParallelEncoder& operator=(const ParallelEncoder&) = delete;
  ~ParallelEncoder();

  void add(std::string document);
  // Encodes and emits what is left; rethrows the first error a thread met.
  void finish();

 private:
  std::vector<int64_t> encode(const std::vector<std::string>& batch) const;
  void submit();
  void emit_oldest();

  const HfTokenizer& tokenizer_;
  bool add_special_tokens_;
  int64_t eos_id_;
  size_t threads_;
  Emit emit_;
  std::vector<std::string> batch_;
  size_t batch_bytes_ = 0;
  struct Running {
    std::future<std::vector<int64_t>> ids;
    int64_t documents;
    size_t bytes;  // of text
  };
  std::deque<Running> running_;
  size_t running_bytes_ = 0;
};

}  // namespace runner::data
