#include "runtime/data/stream/stream_reader.h"

#include "runtime/core/base64.h"
#include "runtime/core/errors.h"
#include "runtime/core/splitmix.h"

namespace runner::data {

nlohmann::json StreamReaderState::to_json() const {
  nlohmann::json records = nlohmann::json::array();
  for (const auto& r : buffer) records.push_back(runner::base64_encode(*r));
  return {{"epoch", epoch}, {"shard_slot", slot}, {"offset", {pos.major, pos.minor}}, {"record_index", record_index},
          {"rng", std::to_string(rng)}, {"draining", draining}, {"epoch_had_records", epoch_had_records},
          {"buffer", records}, {"carry", carry}, {"examples", examples}};
}

StreamReaderState StreamReaderState::from_json(const nlohmann::json& j, const std::string& where) {
  StreamReaderState s;
  try {
    s.epoch = j.at("epoch").get<int64_t>();
    s.slot = j.at("shard_slot").get<int64_t>();
    s.pos = {j.at("offset").at(0).get<int64_t>(), j.at("offset").at(1).get<int64_t>()};
    s.record_index = j.at("record_index").get<int64_t>();
    s.rng = std::stoull(j.at("rng").get<std::string>());
    s.draining = j.at("draining").get<bool>();
    s.epoch_had_records = j.at("epoch_had_records").get<bool>();
    s.examples = j.value("examples", int64_t{0});  // absent from checkpoints written before it existed
    for (const auto& r : j.at("buffer")) {
      auto record = runner::base64_decode(r.get<std::string>());
      if (!record) throw CheckpointError("stream state: malformed shuffle buffer record", where);
      s.buffer.push_back(std::make_shared<const std::string>(std::move(*record)));
    }
    s.carry = j.at("carry").get<std::vector<int64_t>>();
  } catch (const nlohmann::json::exception& e) {
    throw CheckpointError(std::string("malformed stream state: ") + e.what(), where);
  } catch (const std::logic_error& e) {  // stoull
    throw CheckpointError("malformed stream state: rng is not a number", where);
  }
  return s;
}

StreamReader::StreamReader(StreamPtr stream, int64_t index, int64_t count)
    : stream_(std::move(stream)), index_(index), count_(count), interleave_(static_cast<int64_t>(stream_->shards().size()) < count) {
  start_epoch(0);
}

std::vector<int64_t> StreamReader::my_shards(int64_t epoch) const {
  const std::vector<int64_t> order = stream_->shard_order(epoch);
  if (interleave_) return order;
  std::vector<int64_t> mine;
  for (size_t i = static_cast<size_t>(index_); i < order.size(); i += static_cast<size_t>(count_)) mine.push_back(order[i]);
  return mine;
}

void StreamReader::start_epoch(int64_t epoch) {
  s_.epoch = epoch;
  s_.slot = 0;
  s_.pos = {};
  s_.record_index = 0;
  s_.draining = false;
  s_.epoch_had_records = false;
  s_.buffer.clear();
  const uint64_t seed = static_cast<uint64_t>(stream_->options().seed);
  s_.rng = splitmix64_mix(seed ^ splitmix64_mix(static_cast<uint64_t>(epoch) ^ splitmix64_mix(static_cast<uint64_t>(index_) + 1)));
  shards_ = my_shards(epoch);
  reader_.reset();
}

void StreamReader::restore(StreamReaderState state) {
  const int64_t read = s_.records_read, skipped = s_.records_skipped;
  s_ = std::move(state);
  s_.records_read = read;
  s_.records_skipped = skipped;
  shards_ = my_shards(s_.epoch);
  reader_.reset();  // opened at s_.pos on the next read
}

bool StreamReader::read_source(std::string& record) {
  while (s_.slot < static_cast<int64_t>(shards_.size())) {
    if (!reader_) {
      reader_ = open_records(stream_->record_format(), stream_->shards()[static_cast<size_t>(shards_[static_cast<size_t>(s_.slot)])], s_.pos);
      s_.records_skipped += reader_->skipped();
      s_.records_read += reader_->skipped();
    }
    while (reader_->next(record)) {
      ++s_.records_read;
      s_.pos = reader_->position();
      const bool mine = !interleave_ || s_.record_index % count_ == index_;
      ++s_.record_index;
      if (mine) return true;
    }
    reader_.reset();
    ++s_.slot;
    s_.pos = {};
  }
  return false;
}

bool StreamReader::next_record(std::string& record) {
  const auto capacity = static_cast<size_t>(stream_->options().buffer_size);
  while (!s_.draining) {
    std::string incoming;
    if (!read_source(incoming)) {
      s_.draining = true;
      break;
    }
    s_.epoch_had_records = true;
    if (capacity <= 1) {
      record = std::move(incoming);
      return true;
    }
    if (s_.buffer.size() < capacity) {
      s_.buffer.push_back(std::make_shared<const std::string>(std::move(incoming)));
      continue;
    }
    const size_t i = splitmix64(s_.rng) % capacity;
    record = *s_.buffer[i];
    s_.buffer[i] = std::make_shared<const std::string>(std::move(incoming));
    return true;
  }
  if (s_.buffer.empty()) return false;
  const size_t i = splitmix64(s_.rng) % s_.buffer.size();
  record = *s_.buffer[i];
  s_.buffer[i] = std::move(s_.buffer.back());
  s_.buffer.pop_back();
  return true;
}

std::vector<int64_t> StreamReader::next_example() {
  const auto block = static_cast<size_t>(stream_->options().block_size);
  std::string record;
  while (s_.carry.size() < block) {
    if (!next_record(record)) {
      if (!s_.epoch_had_records)
        throw DataError("data.stream: reader " + std::to_string(index_) + " of " + std::to_string(count_) +
                        " (ranks x dataloader workers) got no record in a whole epoch; use fewer ranks or workers, or more data",
                        stream_->describe());
      start_epoch(s_.epoch + 1);
      continue;
    }
    const std::vector<int64_t> ids = stream_->encode(record);
    s_.carry.insert(s_.carry.end(), ids.begin(), ids.end());
  }
  std::vector<int64_t> out(s_.carry.begin(), s_.carry.begin() + static_cast<std::ptrdiff_t>(block));
  s_.carry.erase(s_.carry.begin(), s_.carry.begin() + static_cast<std::ptrdiff_t>(block));
  ++s_.examples;
  return out;
}

}  // namespace runner::data
