// Training from a data.stream (HF Trainer with an IterableDataset): the arguments a stream
// needs or cannot have, its loader, and its position in checkpoints (stream_state.json).
//
// A stream has no length, so max_steps is required (HF: "max_steps must be specified when the
// dataset has no length") and the run is one epoch of max_steps × gradient_accumulation_steps
// batches per rank, as HF counts it; the stream itself starts its next epoch (reshuffled)
// when its shards are done. Resuming restores every rank's readers from stream_state.json
// (same world size and dataloader_num_workers, or a one-line CheckpointError), reading
// nothing before the saved position.
#pragma once
#include <nlohmann/json.hpp>

#include "runtime/data/stream/stream_loader.h"
#include "runtime/train/run_context.h"

namespace runner::train {

// ArgumentError for max_steps <= 0 and the features that need a length (group_by_length,
// auto_find_batch_size).
void check_stream_arguments(const TrainingArguments& args);

// This rank's loader over its share of the stream.
data::DataLoader make_stream_loader(const RunContext& ctx, const data::StreamPtr& stream, int64_t num_batches);

// Every rank's StreamLoader::state(), gathered (a collective: every rank calls it):
// {"version": 1, "world": N, "ranks": [state of rank 0, ...]}.
nlohmann::json gather_stream_state(const data::StreamLoader& stream, const dist::DataParallel& dp);

// Restores this rank's readers from `dir`/stream_state.json; a CheckpointError names the file
// when it is missing or was saved by another split of the stream.
void restore_stream_state(data::StreamLoader& stream, const std::string& dir, int rank, int world);

}  // namespace runner::train
