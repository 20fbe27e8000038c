// Facts about a batch read on the host, before the Trainer copies it to the GPU, so a model
// can take its data-dependent decisions (drop an attention mask that hides nothing, notice
// packed sequences) without making the host wait for the device in every step.
//
// A fact names the device tensor it describes (its TensorImpl and version counter) and holds
// only while a HostFactsScope for that batch is open on this thread: a model handed any other
// tensor (a hook's own mask, an in-place edit) finds no fact and reads the tensor itself.
#pragma once
#include <cstdint>
#include <optional>

#include <ATen/ATen.h>

#include "runtime/models/module.h"

namespace runner::models {

struct HostFact {
  const void* tensor = nullptr;  // the device tensor's TensorImpl; null: no fact
  int64_t version = 0;
  bool value = false;
};

// The sequences packed into (B, T) rows, among the B·T flattened tokens: where each starts,
// then B·T ((n + 1) int32: what a varlen attention kernel takes), and the longest one's length.
struct PackedSequences {
  at::Tensor cu_seqlens;
  int64_t max_len = 0;
};

struct HostFacts {
  HostFact mask_hides_nothing;  // attention_mask: every entry non-zero
  HostFact positions_restart;   // position_ids: some row restarts (packed sequences)
  // Where they restart, for a varlen attention kernel (kernels/packed_attention.h): for a batch on a
  // GPU with positions_restart true, when asked for; cu_seqlens pinned on the host.
  PackedSequences sequences;
};

// Reads `host`'s attention_mask and position_ids; the facts name `device`'s fields (the same
// batch after to_device; the same tensors when training on the CPU). `sequences`: also find
// where packed sequences start (a CUDA graph's static step leaves them out: their number
// varies from batch to batch, and the masks it runs with keep every shape fixed).
HostFacts host_facts(const TensorMap& host, const TensorMap& device, bool sequences = true);

// While alive, the known_* queries answer from `facts` (scopes nest; the innermost wins).
class HostFactsScope {
 public:
  explicit HostFactsScope(const HostFacts& facts);
  ~HostFactsScope();
  HostFactsScope(const HostFactsScope&) = delete;
  HostFactsScope& operator=(const HostFactsScope&) = delete;

 private:
  const HostFacts* previous_;
  HostFacts facts_;
};

// Rows that pack several sequences (position_ids that restart) into a model whose
// input_names() leave position_ids out, or that attends across packed sequences anyway
// (models.gpt, as HF's GPT-2), would let the packed examples attend to each other: a
// DataError naming the model. Models with unknown inputs (written in Lua) pass.
void check_packing_is_honoured(const Module& model, const HostFacts& facts);

// nullopt when no open scope describes this very tensor.
std::optional<bool> known_mask_hides_nothing(const at::Tensor& attention_mask);
std::optional<bool> known_positions_restart(const at::Tensor& position_ids);
// The packed sequences of this very position_ids tensor, when an open scope knows them.
const PackedSequences* known_packed_sequences(const at::Tensor& position_ids);

// The computations themselves (on any device; on a GPU they wait for it).
bool mask_hides_nothing(const at::Tensor& attention_mask);
// Where a row's positions do not continue from the previous token, a new sequence starts:
// (B, T) bool, true at each start (column 0 included).
at::Tensor sequence_starts(const at::Tensor& position_ids);
bool positions_restart(const at::Tensor& position_ids);
// The sequences position_ids (B, T) packs, among the B·T flattened tokens (cu_seqlens int32,
// on position_ids' device; on a GPU this waits for it).
PackedSequences packed_sequences(const at::Tensor& position_ids);

}  // namespace runner::models
