#include "runtime/data/tokenizers/parallel_encoder.h"

#include <algorithm>

namespace runner::data {

namespace {
constexpr size_t kBatchBytes = size_t(1) << 20, kBatchDocuments = 4096, kRunningBytes = size_t(256) << 20;
}

ParallelEncoder::ParallelEncoder(const HfTokenizer& tokenizer, bool add_special_tokens, int64_t eos_id, int threads, Emit emit)
    : tokenizer_(tokenizer), add_special_tokens_(add_special_tokens), eos_id_(eos_id),
      threads_(static_cast<size_t>(std::max(threads, 1))), emit_(std::move(emit)) {}

ParallelEncoder::~ParallelEncoder() {
  // An error on the calling thread (a bad input line) leaves batches running; they read the
  // tokenizer, so wait for them (each future of std::async waits as it is destroyed).
  running_.clear();
}

void ParallelEncoder::add(std::string document) {
  batch_bytes_ += document.size();
  batch_.push_back(std::move(document));
  if (batch_bytes_ >= kBatchBytes || batch_.size() >= kBatchDocuments) submit();
}

void ParallelEncoder::finish() {
  if (!batch_.empty()) submit();
  while (!running_.empty()) emit_oldest();
}

std::vector<int64_t> ParallelEncoder::encode(const std::vector<std::string>& batch) const {
  std::vector<int64_t> ids;
  for (const std::string& document : batch) {
    const std::vector<int64_t> one = tokenizer_.encode(document, add_special_tokens_);
    ids.insert(ids.end(), one.begin(), one.end());
    if (eos_id_ >= 0) ids.push_back(eos_id_);
  }
  return ids;
}

void ParallelEncoder::submit() {
  const auto documents = static_cast<int64_t>(batch_.size());
  if (threads_ == 1) {  // no thread to start: the work is done here, in order
    emit_(encode(batch_), documents);
  } else {
    while (!running_.empty() && (running_.size() >= 2 * threads_ || running_bytes_ + batch_bytes_ > kRunningBytes)) emit_oldest();
    // The text is freed as soon as it is encoded: the future keeps its task (and what the
    // task captured) until it is read.
    running_.push_back({std::async(std::launch::async,
                                   [this, batch = std::move(batch_)]() mutable {
                                     std::vector<int64_t> ids = encode(batch);
                                     std::vector<std::string>().swap(batch);
                                     return ids;
                                   }),
                        documents, batch_bytes_});
    running_bytes_ += batch_bytes_;
  }
  batch_.clear();
  batch_bytes_ = 0;
}

void ParallelEncoder::emit_oldest() {
  Running oldest = std::move(running_.front());
  running_.pop_front();
  running_bytes_ -= oldest.bytes;
  emit_(oldest.ids.get(), oldest.documents);
}

}  // namespace runner::data
