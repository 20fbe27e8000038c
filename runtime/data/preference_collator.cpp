#include "runtime/data/preference_collator.h"

#include <algorithm>

#include "runtime/core/errors.h"

namespace runner::data {

namespace {

const at::Tensor& field(const Example& e, const char* name) {
  auto it = e.find(name);
  if (it == e.end() || it->second.dim() != 1)
    throw DataError(std::string("data.preference_collator: every example needs 1-D prompt_ids, chosen_ids and rejected_ids (data.preference gives them); this one has no 1-D ") + name);
  return it->second;
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
    int64_t T = 0;
    for (const Row& r : rows) T = std::max(T, r.ids.size(0));
    if (o.pad_to_multiple_of > 0) T = (T + o.pad_to_multiple_of - 1) / o.pad_to_multiple_of * o.pad_to_multiple_of;
    at::Tensor input_ids = at::full({2 * B, T}, o.pad_token_id, at::kLong);
    at::Tensor attention = at::zeros({2 * B, T}, at::kLong), completion = at::zeros({2 * B, T}, at::kLong);
    for (int64_t i = 0; i < 2 * B; ++i) {
      const Row& r = rows[static_cast<size_t>(i)];
      const int64_t n = r.ids.size(0);
      input_ids[i].narrow(0, 0, n).copy_(r.ids);
      attention[i].narrow(0, 0, n).fill_(1);
      completion[i].narrow(0, r.completion_from, n - r.completion_from).fill_(1);
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

}  // namespace runner::data
