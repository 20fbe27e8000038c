// One reader of a data.stream: reader `index` of `count` (count = ranks × dataloader workers,
// index = rank × workers + worker). In each epoch it takes, in that epoch's shard order,
//   - every count-th shard starting at its index, when there are at least `count` shards
//     (HF split_dataset_by_node's shard assignment), else
//   - every shard, keeping every count-th record starting at its index (HF's interleaving),
// so no record reaches two readers in one epoch. Its records pass a seeded shuffle buffer
// (HF's algorithm: a full buffer yields a random slot and refills it), are tokenized, and the
// tokens are cut into block_size examples; the remainder carries over to the next record,
// shard and epoch, so no token is dropped. At an epoch's end the reader drains its buffer
// and starts the next epoch, reseeded: the stream never ends, max_steps ends training.
//
// Its whole position is a StreamReaderState: resuming opens the saved shard at the saved
// offset and refills the buffer from the saved records, reading nothing twice.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/data/stream/records.h"
#include "runtime/data/stream/stream.h"

namespace runner::data {

struct StreamReaderState {
  int64_t epoch = 0;
  int64_t slot = 0;          // index into this epoch's shards for this reader
  RecordPos pos;             // in that shard
  int64_t record_index = 0;  // records of the epoch's shard sequence passed (interleaving)
  uint64_t rng = 0;          // the shuffle buffer's generator
  bool draining = false;     // the epoch's shards are done; the buffer empties
  bool epoch_had_records = false;
  // Shared, immutable records: the loader snapshots this state after every batch, and a
  // snapshot then copies pointers, not the buffer's text.
  std::vector<std::shared_ptr<const std::string>> buffer;
  std::vector<int64_t> carry;  // tokens waiting for the next example
  int64_t examples = 0;        // examples this reader has cut, over all epochs: each one's key (BatchOrigin)
  // Not saved: what this process read, for the resume counters.
  int64_t records_read = 0, records_skipped = 0;

  // JSON with the buffer's records base64-encoded (they may be any bytes).
  nlohmann::json to_json() const;
  static StreamReaderState from_json(const nlohmann::json& j, const std::string& where);
};

class StreamReader {
 public:
  StreamReader(StreamPtr stream, int64_t index, int64_t count);
  // The next block_size tokens.
  std::vector<int64_t> next_example();
  const StreamReaderState& state() const { return s_; }
  // Continue from a saved state (the next record read is the one after it).
  void restore(StreamReaderState state);

 private:
  void start_epoch(int64_t epoch);
  std::vector<int64_t> my_shards(int64_t epoch) const;
  bool read_source(std::string& record);  // false at the end of the epoch's shards
  bool next_record(std::string& record);  // through the shuffle buffer; false at the epoch's end

  StreamPtr stream_;
  int64_t index_, count_;
  bool interleave_;
  StreamReaderState s_;
  std::vector<int64_t> shards_;  // this epoch's shards for this reader
  std::unique_ptr<RecordReader> reader_;  // open at s_.pos of shards_[s_.slot], or null
};

}  // namespace runner::data
