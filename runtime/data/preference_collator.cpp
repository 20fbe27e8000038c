#include "runtime/data/preference_collator.h"

#include <algorithm>

#include "runtime/core/errors.h"

namespace runner::data {

namespace {

const at::Tensor& field(const Example& e, const char* name, bool reward = false) {
  auto it = e.find(name);
  if (it == e.end() || it->second.dim() != 1)
    throw DataError(reward ? std::string("data.reward_collator: every example needs 1-D chosen_ids and rejected_ids (data.reward_pairs gives them); this one has no 1-D ") + name
                           : std::string("data.preference_collator: every example needs 1-D prompt_ids, chosen_ids and rejected_ids (data.preference gives them); this one has no 1-D ") + name);
  return it->second;
}

// Rows right-padded to the longest (rounded up to a multiple): input_ids and attention_mask.
std::pair<at::Tensor, at::Tensor> padded(const std::vector<at::Tensor>& rows, int64_t pad_token_id, int64_t multiple) {
  int64_t T = 0;
  for (const at::Tensor& r : rows) T = std::max(T, r.size(0));
  if (multiple > 0) T = (T + multiple - 1) / multiple * multiple;
  const auto n = static_cast<int64_t>(rows.size());
  at::Tensor input_ids = at::full({n, T}, pad_token_id, at::kLong), attention = at::zeros({n, T}, at::kLong);
  for (int64_t i = 0; i < n; ++i) {
    const at::Tensor& r = rows[static_cast<size_t>(i)];
    input_ids[i].narrow(0, 0, r.size(0)).copy_(r);
    attention[i].narrow(0, 0, r.size(0)).fill_(1);
  }
  return {input_ids, attention};
}

}  // namespace

Collator preference_collate(PreferenceCollateOptions o) {
  return [o](const std::vector<Example>& examples) {
    const int64_t B = static_cast<int64_t>(examples.size());
    // Each row: the sequence's tokens and where its completion starts, after the cut.
    struct Row {
      at::Tensor ids;
      int64_t completion_from;
    };
    std::vector<Row> rows;
    rows.reserve(2 * examples.size());
    for (const char* completion : {"chosen_ids", "rejected_ids"})
      for (const Example& e : examples) {
        const at::Tensor& prompt = field(e, "prompt_ids");
        at::Tensor ids = at::cat({prompt.to(at::kLong), field(e, completion).to(at::kLong)});
        int64_t from = prompt.size(0);
        if (o.max_length > 0 && ids.size(0) > o.max_length) {
          const int64_t drop = ids.size(0) - o.max_length;
          ids = o.keep_end ? ids.narrow(0, drop, o.max_length) : ids.narrow(0, 0, o.max_length);
          if (o.keep_end) from = std::max<int64_t>(0, from - drop);
        }
        rows.push_back({ids, std::min(from, ids.size(0))});
      }
    std::vector<at::Tensor> ids;
    for (const Row& r : rows) ids.push_back(r.ids);
    auto [input_ids, attention] = padded(ids, o.pad_token_id, o.pad_to_multiple_of);
    at::Tensor completion = at::zeros_like(attention);
    for (int64_t i = 0; i < 2 * B; ++i) {
      const Row& r = rows[static_cast<size_t>(i)];
      completion[i].narrow(0, r.completion_from, r.ids.size(0) - r.completion_from).fill_(1);
    }
    Batch out{{"input_ids", input_ids}, {"attention_mask", attention}, {"completion_mask", completion}};
    for (const char* ref : {"ref_chosen_logps", "ref_rejected_logps"}) {
      if (!examples.front().count(ref)) continue;
      std::vector<at::Tensor> values;
      for (const Example& e : examples) {
        auto it = e.find(ref);
        if (it == e.end()) throw DataError(std::string("data.preference_collator: some examples have ") + ref + " and some do not");
        values.push_back(it->second.reshape({}).to(at::kFloat));
      }
      out[ref] = at::stack(values);
    }
    return out;
  };
}

Collator reward_collate(PreferenceCollateOptions o) {
  return [o](const std::vector<Example>& examples) {
    std::vector<at::Tensor> rows;
    for (const char* side : {"chosen_ids", "rejected_ids"})
      for (const Example& e : examples) rows.push_back(field(e, side, /*reward=*/true).to(at::kLong));
    auto [input_ids, attention] = padded(rows, o.pad_token_id, o.pad_to_multiple_of);
    Batch out{{"input_ids", input_ids}, {"attention_mask", attention}};
    if (examples.front().count("margin")) {
      std::vector<at::Tensor> margins;
      for (const Example& e : examples) {
        auto it = e.find("margin");
        if (it == e.end()) throw DataError("data.reward_collator: some examples have a margin and some do not");
        margins.push_back(it->second.reshape({}).to(at::kFloat));
      }
      out["margin"] = at::stack(margins);
    }
    return out;
  };
}

}  // namespace runner::data
