// Per-rank optimizer checkpoint files for sharded training (ZeRO ≥ 1 / FSDP over > 1 rank),
// what DeepSpeed's per-rank optim_states files and FSDP's SHARDED_STATE_DICT are: no rank
// ever holds the whole optimizer state to save it.
//
// Each rank writes optimizer.rank-R-of-W.safetensors with the piece of every parameter it
// owns — its fp32 master values ("param.<name>") and each per-element state
// ("exp_avg.<name>", …) — as 1-D tensors. The file's metadata gives each piece's start in
// the flattened parameter ("<key>" → "start") and each parameter's shape ("shape.<name>" →
// JSON list). The pieces of all W files cover every parameter exactly once, so the form is
// world-size independent: a resume on any number of ranks reassembles the flat state and
// slices its own part, and `runner consolidate` rebuilds the fp32 weights offline (what
// zero_to_fp32.py does).
#pragma once
#include <map>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include "runtime/dist/partition.h"
#include "runtime/io/safetensors.h"
#include "runtime/optim/flat_params.h"
#include "runtime/optim/optimizer.h"

namespace runner::train {

std::string shard_file_name(int rank, int world);  // "optimizer.rank-R-of-W.safetensors"

// Writes this rank's file. `local`: state name → this rank's flat shard tensor (the
// optimizer's state, plus "param" for its master values), indexed by OwnedRange::local_begin.
void save_optimizer_shard(const std::string& path, const optim::FlatParams& layout, const std::vector<dist::OwnedRange>& owned,
                          const std::map<std::string, at::Tensor>& local);

// The full flat tensors (layout of `layout`) of the named states, from the W files in `dir`.
// CheckpointError naming the file or key when a file is missing or the pieces do not
// cover a parameter exactly.
std::map<std::string, at::Tensor> load_optimizer_shards(const std::string& dir, int world, const optim::FlatParams& layout,
                                                        const std::vector<std::string>& names);

// The whole flat optimizer state of checkpoint `dir`: from its per-rank shard files (`meta`,
// its optimizer.json, says how many), or from optimizer.safetensors (one flat tensor per
// state, or one per state and parameter).
std::map<std::string, at::Tensor> read_whole_optimizer_state(const std::string& dir, const nlohmann::json& meta, const optim::Optimizer& optimizer,
                                                             const optim::FlatParams& layout);

// This rank's part of each state in `local` (name → its shard tensor, indexed by
// OwnedRange::local_begin; values outside `owned` are left as they are), read piece by piece
// from the W files in `dir`: only the overlapping elements are read, so no rank holds the
// whole flat state. CheckpointError when the files do not cover the owned values exactly.
void load_owned_optimizer_shards(const std::string& dir, int world, const optim::FlatParams& layout,
                                 const std::vector<dist::OwnedRange>& owned, std::map<std::string, at::Tensor>& local);

// Whole parameters from the "param" pieces of the W files in `dir`, in the first file's
// order, as fp32.
io::NamedTensors consolidate_param_shards(const std::string& dir, int world);

}  // namespace runner::train
