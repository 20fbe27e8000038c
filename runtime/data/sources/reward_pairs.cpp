// data.reward_pairs (preference.h): TRL RewardTrainer's _prepare_dataset.
#include <nlohmann/json.hpp>

#include "runtime/core/errors.h"
#include "runtime/data/sources/json_rows.h"
#include "runtime/data/sources/preference.h"

namespace runner::data {

using json = nlohmann::ordered_json;

DatasetPtr load_reward_pairs(const PreferenceOptions& o, const std::string& margin_field) {
  if (!o.tokenizer) throw RecipeError("data.reward_pairs: needs a tokenizer (a tokenizer.json path or data.tokenizer(...))");
  if (o.max_length < 0) throw RecipeError("data.reward_pairs: max_length must be >= 0 (0: no limit)");
  PairRenderer chat_ids(o, "data.reward_pairs");
  std::vector<Example> examples;
  int64_t dropped = 0, index = 0;
  // A dataset's numeric margin column is a tensor field, not one of its text fields.
  const bool margin_column = o.dataset && [&] {
    for (const auto& f : o.dataset->fields())
      if (f == margin_field) return true;
    return false;
  }();
  const std::string &P = o.prompt_field, &C = o.chosen_field, &R = o.rejected_field;
  auto add = [&](const json& row, const std::string& where) {
    const int64_t i = index++;
    for (const std::string* f : {&C, &R})
      if (!row.contains(*f) || !(row[*f].is_string() || row[*f].is_array()))
        throw DataError("needs \"" + C + "\" and \"" + R + "\" (strings, or lists of {role, content} messages)", where);
    const bool chat = row[C].is_array();
    const bool prompt = row.contains(P) && !row[P].is_null();
    if (row[R].is_array() != chat || (prompt && row[P].is_array() != chat))
      throw DataError("\"" + P + "\", \"" + C + "\" and \"" + R + "\" must all be text or all be messages", where);
    std::vector<int64_t> ids[2];
    const std::string* fields[2] = {&C, &R};
    if (chat) {
      for (int k = 0; k < 2; ++k) {
        json all = prompt ? row[P] : json::array();
        for (const auto& m : row[*fields[k]]) all.push_back(m);
        ids[k] = chat_ids.encode(all, row, /*generation_prompt=*/false, where);
      }
    } else {
      for (int k = 0; k < 2; ++k)
        ids[k] = o.tokenizer->encode((prompt ? row[P].get<std::string>() : "") + with_eos(row[*fields[k]].get<std::string>(), o.eos_token));
    }
    if (o.max_length > 0 && (static_cast<int64_t>(ids[0].size()) > o.max_length || static_cast<int64_t>(ids[1].size()) > o.max_length)) {
      ++dropped;
      return;
    }
    Example e{{"chosen_ids", at::tensor(ids[0], at::kLong)}, {"rejected_ids", at::tensor(ids[1], at::kLong)}};
    if (margin_column) {
      const Example fields_of_row = o.dataset->get(i);
      if (auto it = fields_of_row.find(margin_field); it != fields_of_row.end() && it->second.numel() == 1)
        e["margin"] = it->second.reshape({}).to(at::kFloat);
      else throw DataError("\"" + margin_field + "\" must be one number", where);
    } else if (row.contains(margin_field) && !row[margin_field].is_null()) {
      if (!row[margin_field].is_number()) throw DataError("\"" + margin_field + "\" must be a number", where);
      e["margin"] = at::scalar_tensor(row[margin_field].get<double>(), at::kFloat);
    }
    examples.push_back(std::move(e));
  };
  for_each_json_row(o.path, o.dataset, "\"" + C + "\" and \"" + R + "\"", add);
  const std::string source = o.dataset ? o.dataset->describe() : o.path;
  if (o.warn && dropped > 0)
    o.warn("data.reward_pairs: " + std::to_string(dropped) + " row(s) of " + source + " have a chosen or rejected sequence longer than max_length (" +
           std::to_string(o.max_length) + " tokens) and were left out, as TRL leaves them out");
  if (examples.empty()) throw DataError(dropped > 0 ? "no preference pairs (every pair is longer than max_length)" : "no preference pairs", source);
  size_t with_margin = 0;
  for (const Example& e : examples) with_margin += e.count("margin");
  if (with_margin != 0 && with_margin != examples.size()) throw DataError("some rows have \"" + margin_field + "\" and some do not", source);
  return std::make_shared<ExampleListDataset>(std::move(examples), "data.reward_pairs(" + source + ")");
}

}  // namespace runner::data
