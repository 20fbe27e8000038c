// data.stream: the split over readers covers each record exactly once per epoch (by shard and
// by interleaving), epochs reshuffle, a reader or loader restored from its saved state goes on
// exactly as the uninterrupted one, worker threads do not change the batches, and bad input
// names the file and key.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "runtime/data/stream/stream_loader.h"
#include "runtime/data/stream/stream_reader.h"
#include "tests/data/data_test_util.h"

namespace runner::data {
namespace {

using runner::testing::data_error;
using runner::testing::temp_file;

// `shards` text files of `lines` distinct lines each.
std::vector<std::string> make_shards(const std::string& tag, int shards, int lines) {
  std::vector<std::string> files;
  for (int s = 0; s < shards; ++s) {
    std::string text;
    for (int i = 0; i < lines; ++i) text += "s" + std::to_string(s) + "-r" + std::to_string(i) + (i % 3 ? "\n" : "\r\n");
    files.push_back(temp_file(tag + "_" + std::to_string(s) + ".txt", text));
  }
  return files;
}

StreamPtr make_stream(std::vector<std::string> files, int64_t buffer, int64_t block, int64_t seed = 3) {
  StreamOptions o;
  o.sources = std::move(files);
  o.buffer_size = buffer;
  o.block_size = block;
  o.seed = seed;
  o.eos_token_id = '\n';
  return std::make_shared<const Stream>(std::move(o));
}

// The records one reader yields epoch by epoch (block_size 1, so one token at a time); the
// token that shows the next epoch began is kept for it.
struct Walker {
  StreamReader& r;
  int64_t pending = -1;
  std::vector<std::string> epoch(int64_t e) {
    std::vector<std::string> out;
    std::string cur;
    while (true) {
      const int64_t tok = pending >= 0 ? pending : r.next_example().at(0);
      pending = -1;
      if (r.state().epoch != e) {
        pending = tok;
        break;
      }
      if (tok == '\n') out.push_back(cur), cur.clear();
      else cur += static_cast<char>(tok);
    }
    return out;
  }
};
std::vector<std::string> epoch_records(StreamReader& r, int64_t epoch) { return Walker{r}.epoch(epoch); }

void expect_each_record_once(int shards, int lines, int readers) {
  const auto stream = make_stream(make_shards("once" + std::to_string(shards) + "_" + std::to_string(readers), shards, lines), 7, 1);
  std::multiset<std::string> seen;
  for (int k = 0; k < readers; ++k) {
    StreamReader r(stream, k, readers);
    for (const auto& rec : epoch_records(r, 0)) seen.insert(rec);
  }
  ASSERT_EQ(seen.size(), static_cast<size_t>(shards * lines));
  for (int s = 0; s < shards; ++s)
    for (int i = 0; i < lines; ++i) EXPECT_EQ(seen.count("s" + std::to_string(s) + "-r" + std::to_string(i)), 1u);
}

TEST(Stream, SplitByShardCoversEveryRecordOnce) { expect_each_record_once(5, 11, 4); }
TEST(Stream, SplitByInterleavingCoversEveryRecordOnce) { expect_each_record_once(2, 13, 4); }

TEST(Stream, EpochsReshuffleAndSeedsRepeat) {
  const auto files = make_shards("epochs", 3, 20);
  StreamReader a(make_stream(files, 10, 1), 0, 1), b(make_stream(files, 10, 1), 0, 1), c(make_stream(files, 10, 1, 4), 0, 1);
  Walker walk{a};
  const auto a0 = walk.epoch(0), a1 = walk.epoch(1);
  EXPECT_EQ(a0, epoch_records(b, 0));  // same seed, same order
  EXPECT_NE(a0, a1);                   // set_epoch: reseeded
  EXPECT_EQ(std::multiset<std::string>(a0.begin(), a0.end()), std::multiset<std::string>(a1.begin(), a1.end()));
  EXPECT_NE(a0, epoch_records(c, 0));  // another seed
}

TEST(Stream, ReadsLazily) {
  // A corpus is never loaded whole: the first examples cost a buffer's worth of records.
  StreamReader r(make_stream(make_shards("lazy", 20, 100), 10, 5), 0, 1);
  for (int i = 0; i < 3; ++i) r.next_example();
  EXPECT_LE(r.state().records_read, 10 + 3);  // the buffer, then at most a record per example
  EXPECT_GE(r.state().records_read, 11);
}

TEST(Stream, RestoredReaderContinuesExactly) {
  const auto stream = make_stream(make_shards("restore", 3, 40), 16, 9);
  StreamReader whole(stream, 1, 2);
  for (int i = 0; i < 23; ++i) whole.next_example();
  const nlohmann::json saved = whole.state().to_json();
  StreamReader resumed(stream, 1, 2);
  resumed.restore(StreamReaderState::from_json(nlohmann::json::parse(saved.dump()), "test"));
  for (int i = 0; i < 60; ++i) ASSERT_EQ(whole.next_example(), resumed.next_example()) << "example " << i;  // into the next epoch
  EXPECT_EQ(resumed.state().records_skipped, 0);
}

std::vector<Batch> batches(StreamLoader& l, int64_t from, int64_t n) {
  std::vector<Batch> out;
  for (int64_t i = from; i < from + n; ++i) out.push_back(l.batch(i));
  return out;
}

void expect_same(const std::vector<Batch>& a, const std::vector<Batch>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(at::equal(a[i].at("input_ids"), b[i].at("input_ids"))) << "batch " << i;
}

TEST(StreamLoader, WorkerThreadsGiveTheSameBatches) {
  const auto stream = make_stream(make_shards("threads", 6, 30), 8, 5);
  StreamLoaderOptions threaded{3, 2, 2, {}, false}, inline_built{3, 2, 2, [](const std::vector<Example>& e) { return default_collate(e); }, false};
  StreamLoader a(stream, 1, 2, threaded), b(stream, 1, 2, inline_built);
  expect_same(batches(a, 0, 25), batches(b, 0, 25));
}

// Each example's key (BatchOrigin::indices, what an MLM collator seeds its masks from) is unique
// over several epochs, the buffer's draining included, and the same after a restore.
TEST(StreamLoader, ExampleKeysAreUniqueAndSurviveARestore) {
  const auto stream = make_stream(make_shards("keys", 3, 20), 16, 3);
  auto keys = std::make_shared<std::vector<int64_t>>();
  auto recording = [keys](const std::vector<Example>& e, const BatchOrigin& o) {
    keys->insert(keys->end(), o.indices.begin(), o.indices.end());
    return default_collate(e);
  };
  StreamLoaderOptions o{4, 0, 2, recording, false};
  StreamLoader whole(stream, 0, 1, o);
  batches(whole, 0, 10);
  const nlohmann::json saved = whole.state();
  batches(whole, 10, 60);  // past the first epochs' ends (about 19 examples per epoch)
  const std::vector<int64_t> all = *keys;
  EXPECT_EQ(std::set<int64_t>(all.begin(), all.end()).size(), all.size());
  keys->clear();
  StreamLoader resumed(stream, 0, 1, o);
  resumed.restore(nlohmann::json::parse(saved.dump()), "test");
  batches(resumed, 10, 60);
  EXPECT_EQ(*keys, std::vector<int64_t>(all.begin() + 40, all.end()));
}

TEST(StreamLoader, RestoreContinuesWithoutReadingAgain) {
  const auto stream = make_stream(make_shards("loader", 4, 50), 12, 7);
  StreamLoaderOptions o{4, 2, 2, {}, false};
  StreamLoader whole(stream, 0, 1, o);
  batches(whole, 0, 9);
  const nlohmann::json saved = whole.state();
  const int64_t read_before = whole.records_read();
  const auto rest = batches(whole, 9, 20);
  StreamLoader resumed(stream, 0, 1, o);
  resumed.restore(nlohmann::json::parse(saved.dump()), "test");
  EXPECT_EQ(resumed.next_index(), 9);
  expect_same(rest, batches(resumed, 9, 20));
  EXPECT_EQ(resumed.records_skipped(), 0);
  EXPECT_EQ(resumed.records_read(), whole.records_read() - read_before);  // only what the later batches needed
  EXPECT_NE(data_error([&] { resumed.batch(3); }), "");                    // in order only

  StreamLoader other_split(stream, 0, 1, StreamLoaderOptions{4, 3, 2, {}, false});
  try {
    other_split.restore(saved, "ckpt/stream_state.json");
    FAIL() << "a checkpoint of 2 readers restored into 3";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("dataloader_num_workers"), std::string::npos) << e.what();
  }
}

TEST(Stream, TokenFilesStreamTheirIdsInWindows) {
  std::string bytes;
  for (int t = 0; t < 1000; ++t) bytes += static_cast<char>(t & 0xff), bytes += static_cast<char>(t >> 8);  // uint16 little-endian
  const std::string a = temp_file("tok_a.bin", bytes.substr(0, 1200)), b = temp_file("tok_b.bin", bytes.substr(1200));
  temp_file("tok_a.bin.json", R"({"dtype": "uint16", "vocab_size": 1000})");
  StreamOptions o;
  o.sources = {a, b};
  o.block_size = 10;
  o.buffer_size = 0;  // windows in file order
  auto stream = std::make_shared<const Stream>(o);
  EXPECT_EQ(stream->vocab_size(), 1000);
  std::multiset<int64_t> seen;
  for (int k = 0; k < 2; ++k) {  // two readers: one shard each
    StreamReader r(stream, k, 2);
    const std::vector<int64_t> first = r.next_example();
    EXPECT_EQ(first[1], first[0] + 1);
    seen.insert(first.begin(), first.end());
    while (true) {  // to the end of the epoch (the shards are whole windows: nothing carries over)
      const auto w = r.next_example();
      if (r.state().epoch != 0) break;
      seen.insert(w.begin(), w.end());
    }
  }
  ASSERT_EQ(seen.size(), 1000u);
  for (int t = 0; t < 1000; ++t) EXPECT_EQ(seen.count(t), 1u) << t;
  EXPECT_NE(data_error([&] { Stream s([&] { auto bad = o; bad.sources = {temp_file("odd.bin", "abc")}; return bad; }()); }).find("odd.bin"), std::string::npos);
}

TEST(Stream, BadInputNamesFileAndKey) {
  const std::string jsonl = temp_file("bad.jsonl", "{\"text\": \"a\"}\n{\"content\": \"b\"}\n");
  StreamOptions o;
  o.sources = {jsonl};
  o.block_size = 4;
  o.column = "content";
  std::string msg = data_error([&] { Stream s(o); });
  EXPECT_NE(msg.find("bad.jsonl"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'content'"), std::string::npos) << msg;
  o.sources = {jsonl + ".missing"};
  msg = data_error([&] { Stream s(o); });
  EXPECT_NE(msg.find("bad.jsonl.missing"), std::string::npos) << msg;
}

TEST(Stream, JsonlLinesOfOnlyBlanksAreNoRecords) {
  // data.jsonl and HF's json loader skip them; a streamed shard did not, and failed mid-run.
  const std::string path = temp_file("blanks.jsonl", "{\"text\": \"a\"}\n   \n\t\n{\"text\": \"b\"}\n  ");
  RecordFormat f;
  f.format = "jsonl";
  f.column = "text";
  auto reader = open_records(f, path, {});
  std::vector<std::string> got;
  for (std::string r; reader->next(r);) got.push_back(r);
  EXPECT_EQ(got, (std::vector<std::string>{"a", "b"}));
}

}  // namespace
}  // namespace runner::data
