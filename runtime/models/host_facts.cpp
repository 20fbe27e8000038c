#include "runtime/models/host_facts.h"

#include <algorithm>

#include "runtime/core/errors.h"

namespace runner::models {

namespace {

thread_local const HostFacts* t_facts = nullptr;

const at::Tensor* field(const TensorMap& batch, const char* name) {
  auto it = batch.find(name);
  return it == batch.end() || !it->second.defined() ? nullptr : &it->second;
}

// Inference tensors keep no version counter (and cannot be edited in place).
int64_t version_of(const at::Tensor& t) { return t.is_inference() ? 0 : static_cast<int64_t>(t._version()); }

HostFact fact_about(const at::Tensor& device, bool value) { return {device.unsafeGetTensorImpl(), version_of(device), value}; }

std::optional<bool> lookup(const HostFact HostFacts::*which, const at::Tensor& t) {
  if (!t_facts || !t.defined()) return std::nullopt;
  const HostFact& f = t_facts->*which;
  if (f.tensor != t.unsafeGetTensorImpl() || f.version != version_of(t)) return std::nullopt;
  return f.value;
}

}  // namespace

bool mask_hides_nothing(const at::Tensor& attention_mask) { return attention_mask.ne(0).all().item<bool>(); }

at::Tensor sequence_starts(const at::Tensor& position_ids) {
  at::Tensor starts = at::diff(position_ids, 1, -1).ne(1);  // (B, T - 1): column t starts a sequence
  return at::cat({at::ones({position_ids.size(0), 1}, starts.options()), starts}, 1);
}

bool positions_restart(const at::Tensor& position_ids) {
  if (position_ids.size(1) < 2) return false;
  return sequence_starts(position_ids).narrow(1, 1, position_ids.size(1) - 1).any().item<bool>();
}

PackedSequences packed_sequences(const at::Tensor& position_ids) {
  const int64_t tokens = position_ids.numel();
  const at::Tensor starts = at::nonzero(sequence_starts(position_ids).reshape({tokens})).reshape({-1});
  const at::Tensor ends = at::full({1}, tokens, starts.options());
  const at::Tensor cu = at::cat({starts, ends}).to(at::kInt);
  return {cu, tokens == 0 ? 0 : at::diff(cu).max().item<int64_t>()};
}

HostFacts host_facts(const TensorMap& host, const TensorMap& device, bool sequences) {
  HostFacts f;
  const at::Tensor *hm = field(host, "attention_mask"), *dm = field(device, "attention_mask");
  if (hm && dm && hm->is_cpu() && hm->sizes().equals(dm->sizes())) f.mask_hides_nothing = fact_about(*dm, mask_hides_nothing(*hm));
  const at::Tensor *hp = field(host, "position_ids"), *dp = field(device, "position_ids");
  if (hp && dp && hp->is_cpu() && hp->dim() == 2 && hp->sizes().equals(dp->sizes()) && !hp->is_floating_point()) {
    f.positions_restart = fact_about(*dp, positions_restart(*hp));
    // Only a GPU has a varlen kernel to take them. Pinned, so the model's copy to the GPU
    // does not wait for the work queued before it.
    if (sequences && f.positions_restart.value && dp->is_cuda()) {
      f.sequences = packed_sequences(*hp);
      f.sequences.cu_seqlens = f.sequences.cu_seqlens.pin_memory();
    }
  }
  return f;
}

void check_packing_is_honoured(const Module& model, const HostFacts& facts) {
  if (!facts.positions_restart.tensor || !facts.positions_restart.value) return;
  const std::vector<std::string> inputs = model.input_names();
  const bool reads_positions = std::find(inputs.begin(), inputs.end(), "position_ids") != inputs.end();
  if (inputs.empty() || (reads_positions && !model.attends_across_packed_sequences())) return;
  throw DataError("the batch packs several sequences per row (its position_ids restart), but " + model.type_name() +
                  (reads_positions ? " lets every token attend to the whole row before it" : " does not read position_ids") +
                  ", so the packed examples would attend to each other: use packing = false, "
                  "or a model that keeps packed sequences apart (models.llama, models.from_pretrained of a Llama-family folder)");
}

HostFactsScope::HostFactsScope(const HostFacts& facts) : previous_(t_facts), facts_(facts) { t_facts = &facts_; }

HostFactsScope::~HostFactsScope() { t_facts = previous_; }

std::optional<bool> known_mask_hides_nothing(const at::Tensor& attention_mask) {
  return lookup(&HostFacts::mask_hides_nothing, attention_mask);
}

std::optional<bool> known_positions_restart(const at::Tensor& position_ids) {
  return lookup(&HostFacts::positions_restart, position_ids);
}

const PackedSequences* known_packed_sequences(const at::Tensor& position_ids) {
  const std::optional<bool> restart = lookup(&HostFacts::positions_restart, position_ids);
  if (!restart || !*restart || !t_facts->sequences.cu_seqlens.defined()) return nullptr;
  return &t_facts->sequences;
}

}  // namespace runner::models
