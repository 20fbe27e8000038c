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
  const at::Tensor before_first = position_ids.narrow(1, 0, 1) - 1;
  return at::diff(position_ids, 1, -1, before_first).ne(1);
}

bool positions_restart(const at::Tensor& position_ids) {
  if (position_ids.size(1) < 2) return false;
  return sequence_starts(position_ids).narrow(1, 1, position_ids.size(1) - 1).any().item<bool>();
}

HostFacts host_facts(const TensorMap& host, const TensorMap& device) {
  HostFacts f;
  const at::Tensor *hm = field(host, "attention_mask"), *dm = field(device, "attention_mask");
  if (hm && dm && hm->is_cpu() && hm->sizes().equals(dm->sizes())) f.mask_hides_nothing = fact_about(*dm, mask_hides_nothing(*hm));
  const at::Tensor *hp = field(host, "position_ids"), *dp = field(device, "position_ids");
  if (hp && dp && hp->is_cpu() && hp->dim() == 2 && hp->sizes().equals(dp->sizes()) && !hp->is_floating_point())
    f.positions_restart = fact_about(*dp, positions_restart(*hp));
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

}  // namespace runner::models
