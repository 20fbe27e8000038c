#include "runtime/data/sources/preference.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "runtime/core/errors.h"
#include "runtime/data/sources/json_rows.h"
#include "runtime/data/sources/sft_template.h"

namespace runner::data {

using json = nlohmann::ordered_json;

namespace {

bool is_messages(const json& v) { return v.is_array() && (v.empty() || v[0].is_object()); }

// TRL's extract_prompt: the longest common prefix of chosen and rejected (characters of text,
// whole messages of conversations) is the prompt; a text prompt gives its trailing space back
// to the completions. As TRL's loop, identical completions leave their last element out.
void extract_prompt(json& row, const std::string& p, const std::string& c, const std::string& r, const std::string& where) {
  const json chosen = row[c], rejected = row[r];  // copies: adding the prompt moves row's values
  const size_t n = chosen.is_string() ? std::min(chosen.get_ref<const std::string&>().size(), rejected.get_ref<const std::string&>().size())
                                      : std::min(chosen.size(), rejected.size());
  if (n == 0) throw DataError("without a \"" + p + "\" field, \"" + c + "\" and \"" + r + "\" must both be non-empty (the prompt is their common start)", where);
  if (chosen.is_string()) {
    const std::string a = chosen.get<std::string>(), b = rejected.get<std::string>();
    size_t k = 0;
    while (k < n && a[k] == b[k]) ++k;
    const bool differ = k < n;
    if (!differ) k = n - 1;  // Python's loop variable keeps its last value
    while (k > 0 && (static_cast<unsigned char>(a[k]) & 0xC0) == 0x80) --k;  // Python cuts between characters
    if (differ && k > 0 && a[k - 1] == ' ') --k;  // the space before the completion starts it
    row[p] = a.substr(0, k), row[c] = a.substr(k), row[r] = b.substr(k);
    return;
  }
  size_t k = 0;
  while (k < n - 1 && chosen[k] == rejected[k]) ++k;
  json prompt = json::array(), ca = json::array(), ra = json::array();
  for (size_t i = 0; i < chosen.size(); ++i) (i < k ? prompt : ca).push_back(chosen[i]);
  for (size_t i = k; i < rejected.size(); ++i) ra.push_back(rejected[i]);
  row[p] = std::move(prompt), row[c] = std::move(ca), row[r] = std::move(ra);
}


size_t common_prefix(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  size_t k = 0;
  while (k < a.size() && k < b.size() && a[k] == b[k]) ++k;
  return k;
}

at::Tensor ids_tensor(const std::vector<int64_t>& v, size_t from, size_t to) {
  return at::tensor(std::vector<int64_t>(v.begin() + static_cast<std::ptrdiff_t>(from), v.begin() + static_cast<std::ptrdiff_t>(to)), at::kLong);
}

}  // namespace

PairRenderer::PairRenderer(const PreferenceOptions& o, std::string fn)
    : tokenizer_(o.tokenizer), chat_template_(o.chat_template), tokenizer_path_(o.tokenizer_path), eos_token_(o.eos_token), fn_(std::move(fn)) {}
PairRenderer::~PairRenderer() = default;

std::vector<int64_t> PairRenderer::encode(const json& messages, const json& row, bool generation_prompt, const std::string& where) {
  if (!looked_) jinja_ = template_layout(chat_template_, tokenizer_path_, eos_token_, fn_), looked_ = true;
  if (!jinja_)
    throw DataError("conversational rows need a chat template: the tokenizer's folder has none and chat_template = \"" + chat_template_ +
                        "\" is a built-in layout; give chat_template = \"<Jinja template>\"",
                    where);
  const std::string text = jinja_->render_text(messages, tools_of(row, where), kwargs_of(row, where), generation_prompt, where);
  return tokenizer_->encode(text, /*add_special_tokens=*/false);
}

std::string with_eos(const std::string& text, const std::string& eos) {
  const bool ends = !eos.empty() && text.size() >= eos.size() && text.compare(text.size() - eos.size(), eos.size(), eos) == 0;
  return ends ? text : text + eos;
}

DatasetPtr load_preference(const PreferenceOptions& o) {
  if (!o.tokenizer) throw RecipeError("data.preference: needs a tokenizer (a tokenizer.json path or data.tokenizer(...))");
  if (o.max_length < 0) throw RecipeError("data.preference: max_length must be >= 0 (0: no limit)");
  PairRenderer chat_ids(o, "data.preference");
  std::vector<Example> examples;
  int64_t dropped = 0, merged = 0;
  const std::string &P = o.prompt_field, &C = o.chosen_field, &R = o.rejected_field;
  auto add = [&](const json& line, const std::string& where) {
    json row = line;
    for (const std::string* f : {&C, &R})
      if (!row.contains(*f) || !(row[*f].is_string() || is_messages(row[*f])))
        throw DataError("needs \"" + C + "\" and \"" + R + "\" (strings, or lists of {role, content} messages)", where);
    const bool chat = row[C].is_array();
    if (row[R].is_array() != chat) throw DataError("\"" + C + "\" and \"" + R + "\" must both be text or both be messages", where);
    if (!row.contains(P) || row[P].is_null()) extract_prompt(row, P, C, R, where);
    if (chat ? !is_messages(row[P]) : !row[P].is_string())
      throw DataError("\"" + P + "\" must be " + (chat ? "a list of messages, as the completions are" : "text, as the completions are"), where);
    std::vector<int64_t> prompt, with_chosen, with_rejected;
    if (chat) {
      auto render = [&](const json& messages, bool generation_prompt) { return chat_ids.encode(messages, row, generation_prompt, where); };
      auto joined = [&](const std::string& completion) {
        json all = row[P];
        for (const auto& m : row[completion]) all.push_back(m);
        return all;
      };
      prompt = render(row[P], true), with_chosen = render(joined(C), false), with_rejected = render(joined(R), false);
    } else {
      // TRL adds the end-of-text token to a completion that does not end with it.
      auto completed = [&](const std::string& field) { return row[P].get<std::string>() + with_eos(row[field].get<std::string>(), o.eos_token); };
      prompt = o.tokenizer->encode(row[P].get<std::string>()), with_chosen = o.tokenizer->encode(completed(C)),
      with_rejected = o.tokenizer->encode(completed(R));
    }
    const size_t cut = std::min(common_prefix(prompt, with_chosen), common_prefix(prompt, with_rejected));
    if (cut < prompt.size()) ++merged;
    if (o.max_length > 0 && !o.keep_end && static_cast<int64_t>(cut) >= o.max_length) {
      ++dropped;
      return;
    }
    examples.push_back({{"prompt_ids", ids_tensor(prompt, 0, cut)},
                        {"chosen_ids", ids_tensor(with_chosen, cut, with_chosen.size())},
                        {"rejected_ids", ids_tensor(with_rejected, cut, with_rejected.size())}});
  };
  for_each_json_row(o.path, o.dataset, "\"" + C + "\" and \"" + R + "\"", add);
  const std::string source = o.dataset ? o.dataset->describe() : o.path;
  if (o.warn && merged > 0)
    o.warn("data.preference: in " + std::to_string(merged) + " row(s) of " + source +
           " the tokenized prompt is not a prefix of prompt + completion (the template renders the prompt alone differently, or "
           "tokens merge across the boundary); the completion starts where they differ, as in TRL");
  if (o.warn && dropped > 0)
    o.warn("data.preference: " + std::to_string(dropped) + " row(s) of " + source + " have a prompt of max_length (" + std::to_string(o.max_length) +
           ") tokens or more and were left out, as TRL leaves them out");
  if (examples.empty()) throw DataError("no preference pairs (every prompt has max_length tokens or more)", source);
  return std::make_shared<ExampleListDataset>(std::move(examples), "data.preference(" + source + ")");
}

}  // namespace runner::data
