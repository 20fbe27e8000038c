// The key/value cache of incremental decoding (generation.h): each attention layer keeps the
// keys and values of every position seen so far, so a new token costs one position's work
// instead of the whole prefix's.
#pragma once
#include <vector>

#include <ATen/ATen.h>

namespace runner::models {

struct KVCache {
  std::vector<at::Tensor> keys, values;  // per layer: (B, H_kv, T_past, D), after RoPE
  at::Tensor attention_mask;             // (B, T_past): 1 = real token, 0 = padding; undefined = none

  int64_t length() const { return keys.empty() || !keys[0].defined() ? 0 : keys[0].size(2); }
  // Beam search: keep the rows `rows` (a (B') index into the batch), in that order.
  void select_rows(const at::Tensor& rows) {
    for (auto* list : {&keys, &values})
      for (at::Tensor& t : *list)
        if (t.defined()) t = t.index_select(0, rows);
    if (attention_mask.defined()) attention_mask = attention_mask.index_select(0, rows);
  }
};

}  // namespace runner::models
