// The per-word cache of a tokenizer model (BPE, Unigram): a corpus's frequent words are
// tokenized once. Sharded by the word's hash, each shard behind its own lock, so threads
// tokenizing at once (prepare-data's --num_proc, data loader workers) seldom wait for each
// other: one lock for the whole cache made every word of every thread queue on it.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace runner::data {

class WordCache {
 public:
  // Appends the ids of `word` to `out`: the cached ones, else tokenize(word, ids)'s, which
  // are then kept (up to about a million words; after that new words are not cached).
  template <class Tokenize>
  void append(std::string_view word, std::vector<int64_t>& out, Tokenize&& tokenize) const {
    const size_t hash = std::hash<std::string_view>{}(word);
    Shard& shard = shards_[hash % kShards];
    {
      std::lock_guard<std::mutex> lock(shard.mutex);
      if (auto it = shard.words.find(std::string(word)); it != shard.words.end()) {
        out.insert(out.end(), it->second.begin(), it->second.end());
        return;
      }
    }
    std::vector<int64_t> ids;
    tokenize(word, ids);
    out.insert(out.end(), ids.begin(), ids.end());
    std::lock_guard<std::mutex> lock(shard.mutex);
    if (shard.words.size() < kWordsPerShard) shard.words.emplace(std::string(word), std::move(ids));
  }

 private:
  static constexpr size_t kShards = 64, kWordsPerShard = 1000000 / kShards;
  struct Shard {
    std::mutex mutex;
    std::unordered_map<std::string, std::vector<int64_t>> words;
  };
  mutable std::array<Shard, kShards> shards_;
};

}  // namespace runner::data
