#include "runtime/data/stream/stream_loader.h"

#include <chrono>

#include <ATen/ATen.h>

#include "runtime/core/errors.h"

namespace runner::data {

namespace {

// An example's key (BatchOrigin::indices): the reader's id and how many examples it had cut
// before this one. A resumed reader restores that count, so an example keeps its key (and an
// MLM collator its masks) across a resume.
int64_t position_key(int64_t reader_id, const StreamReaderState& s) { return (reader_id << 40) | ((s.examples - 1) & ((int64_t{1} << 40) - 1)); }

}  // namespace

StreamLoader::StreamLoader(StreamPtr stream, int64_t rank, int64_t world, StreamLoaderOptions options)
    : stream_(std::move(stream)), rank_(rank), world_(world), options_(std::move(options)) {
  if (options_.batch_size <= 0) throw ArgumentError("data.stream: the batch size must be > 0");
  const int64_t n = std::max<int64_t>(1, options_.num_workers);
  for (int64_t w = 0; w < n; ++w) {
    auto r = std::make_unique<Reader>();
    r->id = rank_ * n + w;
    r->reader = std::make_unique<StreamReader>(stream_, r->id, world_ * n);
    r->consumed = std::make_shared<StreamReaderState>(r->reader->state());
    readers_.push_back(std::move(r));
  }
  threaded_ = options_.num_workers > 0 && (!options_.collator || options_.collator_thread_safe);
}

StreamLoader::~StreamLoader() { stop_threads(); }

StreamLoader::Produced StreamLoader::produce(Reader& r) const {
  Produced p;
  try {
    std::vector<Example> examples;
    BatchOrigin origin{options_.seed, 0, {}};  // epoch 0: the keys count examples over all epochs
    for (int64_t i = 0; i < options_.batch_size; ++i) {
      const at::Tensor ids = at::tensor(r.reader->next_example(), at::kLong);
      examples.push_back({{"input_ids", ids}, {"labels", ids.clone()}});  // the model shifts the labels (HF causal LM)
      origin.indices.push_back(position_key(r.id, r.reader->state()));
    }
    p.batch = options_.collator ? options_.collator(examples, origin) : default_collate(examples);
  } catch (const std::exception&) {  // rethrown by batch() on the caller's thread
    p.error = std::current_exception();
  }
  p.after = std::make_shared<const StreamReaderState>(r.reader->state());
  return p;
}

void StreamLoader::work(Reader& r) {
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait(lock, [&] { return stop_ || static_cast<int64_t>(r.ready.size()) < std::max<int64_t>(1, options_.prefetch_factor); });
      if (stop_) return;
    }
    Produced p = produce(r);
    const bool failed = p.error != nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      r.ready.push_back(std::move(p));
    }
    cv_.notify_all();
    if (failed) return;
  }
}

void StreamLoader::start_threads() {
  started_ = true;
  for (auto& r : readers_) r->thread = std::thread([this, reader = r.get()] { work(*reader); });
}

void StreamLoader::stop_threads() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& r : readers_)
    if (r->thread.joinable()) r->thread.join();
}

Batch StreamLoader::batch(int64_t index) {
  if (index != next_)
    throw DataError("data.stream is read in order: batch " + std::to_string(index) + " was asked for, the next one is " + std::to_string(next_),
                    stream_->describe());
  const auto start = std::chrono::steady_clock::now();
  Reader& r = *readers_[static_cast<size_t>(index % static_cast<int64_t>(readers_.size()))];
  Produced p;
  if (threaded_) {
    if (!started_) start_threads();
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [&] { return !r.ready.empty(); });
    p = std::move(r.ready.front());
    r.ready.pop_front();
    lock.unlock();
    cv_.notify_all();
  } else {
    p = produce(r);
  }
  wait_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (p.error) std::rethrow_exception(p.error);
  r.consumed = std::move(p.after);
  ++next_;
  return std::move(p.batch);
}

nlohmann::json StreamLoader::state() const {
  nlohmann::json states = nlohmann::json::array();
  for (const auto& r : readers_) states.push_back(r->consumed->to_json());
  return {{"rank", rank_}, {"world", world_}, {"readers", readers_.size()}, {"batches", next_}, {"states", std::move(states)}};
}

void StreamLoader::restore(const nlohmann::json& state, const std::string& where) {
  if (started_ || next_ != 0) throw std::logic_error("StreamLoader::restore after the first batch");
  try {
    const int64_t world = state.at("world").get<int64_t>(), readers = state.at("readers").get<int64_t>();
    if (world != world_ || readers != static_cast<int64_t>(readers_.size()))
      throw CheckpointError("the checkpoint's data.stream was split over " + std::to_string(world) + " rank(s) x " + std::to_string(readers) +
                            " reader(s), this run has " + std::to_string(world_) + " x " + std::to_string(readers_.size()) +
                            "; resume a stream with the same world size and dataloader_num_workers", where);
    if (state.at("rank").get<int64_t>() != rank_) throw CheckpointError("stream state of rank " + state.at("rank").dump() + " given to rank " + std::to_string(rank_), where);
    const auto& states = state.at("states");
    if (static_cast<int64_t>(states.size()) != readers) throw CheckpointError("malformed stream state: " + std::to_string(states.size()) + " reader states", where);
    for (size_t i = 0; i < readers_.size(); ++i) {
      readers_[i]->reader->restore(StreamReaderState::from_json(states[i], where));
      readers_[i]->consumed = std::make_shared<const StreamReaderState>(readers_[i]->reader->state());
    }
    next_ = state.at("batches").get<int64_t>();
  } catch (const nlohmann::json::exception& e) {
    throw CheckpointError(std::string("malformed stream state: ") + e.what(), where);
  }
}

int64_t StreamLoader::records_read() const {
  int64_t n = 0;
  for (const auto& r : readers_) n += r->consumed->records_read;
  return n;
}

int64_t StreamLoader::records_skipped() const {
  int64_t n = 0;
  for (const auto& r : readers_) n += r->consumed->records_skipped;
  return n;
}

}  // namespace runner::data
