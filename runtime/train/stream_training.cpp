#include "runtime/train/stream_training.h"

#include "runtime/core/errors.h"
#include "runtime/io/atomic_file.h"
#include "runtime/log/log.h"

namespace runner::train {

using nlohmann::json;

void check_stream_arguments(const TrainingArguments& args) {
  if (args.max_steps <= 0)
    throw ArgumentError("args.max_steps: max_steps must be specified when the train dataset is a data.stream (it has no length)");
  if (args.train_sampling_strategy == "group_by_length")
    throw ArgumentError("args.train_sampling_strategy: group_by_length needs the lengths of the whole dataset; a data.stream has none");
  if (args.auto_find_batch_size)
    throw ArgumentError("args.auto_find_batch_size: not supported with a data.stream (a probe batch would consume the stream)");
}

data::DataLoader make_stream_loader(const RunContext& ctx, const data::StreamPtr& stream, int64_t num_batches) {
  data::StreamLoaderOptions o;
  o.batch_size = ctx.args.per_device_train_batch_size;
  o.num_workers = ctx.args.dataloader_num_workers;
  o.prefetch_factor = ctx.args.dataloader_prefetch_factor.value_or(2);
  o.collator = ctx.options.collator;
  o.collator_thread_safe = ctx.options.collator_thread_safe;
  o.seed = static_cast<uint64_t>(ctx.args.seed);
  auto loader = std::make_shared<data::StreamLoader>(stream, ctx.dp.rank(), ctx.dp.world(), std::move(o));
  return data::DataLoader(std::move(loader), num_batches, ctx.device.pin_memory);
}

json gather_stream_state(const data::StreamLoader& stream, const dist::DataParallel& dp) {
  const std::string mine = stream.state().dump();
  json ranks = json::array();
  if (dp.world() == 1) {
    ranks.push_back(json::parse(mine));
  } else {
    // Equal-sized rows for the communicator: every state padded to the longest.
    const std::vector<double> lengths = dp.gather(static_cast<double>(mine.size()));
    int64_t longest = 0;
    for (const double n : lengths) longest = std::max(longest, static_cast<int64_t>(n));
    at::Tensor row = at::zeros({longest}, at::kByte);
    std::memcpy(row.data_ptr<uint8_t>(), mine.data(), mine.size());
    const at::Tensor all = dp.all_gather_rows(row).contiguous();
    for (int r = 0; r < dp.world(); ++r) {
      const auto* bytes = reinterpret_cast<const char*>(all[r].data_ptr<uint8_t>());
      ranks.push_back(json::parse(std::string(bytes, static_cast<size_t>(lengths[static_cast<size_t>(r)]))));
    }
  }
  return {{"version", 1}, {"world", dp.world()}, {"ranks", std::move(ranks)}};
}

void restore_stream_state(data::StreamLoader& stream, const std::string& dir, int rank, int world) {
  const std::string file = dir + "/stream_state.json";
  if (!io::path_exists(file))
    throw CheckpointError("no stream_state.json: this checkpoint was not saved by a run training from a data.stream, so the stream's position is unknown",
                          dir);
  const json all = io::read_json_file(file);
  if (!all.contains("ranks") || !all["ranks"].is_array()) throw CheckpointError("malformed stream state: no \"ranks\" list", file);
  if (static_cast<int>(all["ranks"].size()) != world)
    throw CheckpointError("the data.stream was saved by " + std::to_string(all["ranks"].size()) + " rank(s), this run has " + std::to_string(world) +
                          "; resume a stream with the same world size (and dataloader_num_workers)", file);
  stream.restore(all["ranks"][static_cast<size_t>(rank)], file);
  if (rank == 0)
    log::info("Resumed " + stream.stream().describe() + " at batch " + std::to_string(stream.next_index()) + " from " + file +
              " (saved readers' shard, offset, shuffle buffer and packing remainder; nothing before them is read)");
}

}  // namespace runner::train
