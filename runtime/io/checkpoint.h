// Checkpoint folders (DESIGN.md output contract). A checkpoint is staged in a temporary
// folder and renamed into place, so a crash never leaves a half-written checkpoint-N.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/io/safetensors.h"

namespace runner::io {

struct CheckpointContents {
  NamedTensors model;              // model.safetensors (PyTorch names), or a LoRA model's adapters
  std::string model_file = "model.safetensors";  // adapter_model.safetensors for adapters
  std::string model_config_file = "config.json";  // adapter_config.json for adapters
  NamedTensors optimizer;          // optimizer.safetensors: "<state>.<param name>" (skipped when empty)
  nlohmann::json optimizer_meta;   // optimizer.json: type, step, hyper-parameters (skipped when null)
  nlohmann::json scheduler;        // scheduler.json (skipped when null)
  nlohmann::json rng;              // rng_state.json (skipped when null)
  nlohmann::json loop;             // loop_state.json: runner's unlogged loss bookkeeping (skipped when null)
  nlohmann::json scaler;           // scaler.json: fp16 loss scale and counters (skipped when null)
  nlohmann::json stream;           // stream_state.json: a data.stream's position on every rank (skipped when null)
  nlohmann::json trainer_state;    // trainer_state.json
  nlohmann::json training_args;    // training_args.json
  nlohmann::json model_config;     // model_config_file: the HF model config, so transformers (or peft) loads the folder (skipped when null)
  nlohmann::json generation_config;  // generation_config.json, as save_pretrained writes it (skipped when null)
  std::vector<std::pair<std::string, std::string>> copy_files;  // (source path, name in the folder)
  // Files other processes wrote (per-rank optimizer shards): renamed into the folder
  // under their own names before it is committed. A missing one is a CheckpointError.
  std::vector<std::string> move_files;
};

// `before_moves` (optional) runs once this process's files are staged, before move_files
// are moved in: a background save waits there for the other ranks' files (async_save.h).
void write_checkpoint(const std::string& dir, const CheckpointContents& contents, const std::function<void()>& before_moves = nullptr);

// checkpoint-<N> folders of `output_dir`, sorted by N.
std::vector<std::pair<int64_t, std::string>> list_checkpoints(const std::string& output_dir);
std::optional<std::string> last_checkpoint(const std::string& output_dir);

// HF checkpoint rotation: sort by step, move the best checkpoint to second-to-last (the
// newest stays last), keep `limit` (2 when limit is 1 and the best is not the newest, so
// training can still resume), and return the folders to delete, oldest first.
// `written`, the checkpoint just saved, counts as the newest whatever its step: a folder
// that holds an earlier run's higher-numbered checkpoints loses those, never the new one
// (HF's sort by step would delete the checkpoint it just wrote).
std::vector<std::string> checkpoints_to_delete(const std::vector<std::pair<int64_t, std::string>>& sorted,
                                               const std::optional<std::string>& best, int64_t limit,
                                               const std::optional<std::string>& written = std::nullopt);

}  // namespace runner::io
