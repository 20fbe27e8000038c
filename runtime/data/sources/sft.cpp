#include "runtime/data/sources/sft.h"

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "runtime/core/errors.h"
#include "runtime/data/sources/json_rows.h"
#include "runtime/data/sources/sft_template.h"

namespace runner::data {

using json = nlohmann::ordered_json;  // key order reaches Jinja templates (tojson, items())

namespace {

// TRL appends the end-of-text token unless the completion ends with it already.
std::string with_eos(const std::string& content, const std::string& eos) {
  const bool ends = !eos.empty() && content.size() >= eos.size() && content.compare(content.size() - eos.size(), eos.size(), eos) == 0;
  return ends ? "" : eos;
}

// The built-in layouts, for one example. simple (Alpaca's layout):
//   "### System:\n{system}\n\n" "### Instruction:\n{user}\n\n" "### Response:\n" + {assistant}{eos}
// chatml (Qwen, many chat models): "<|im_start|>{role}\n{content}<|im_end|>\n" per turn; an
// assistant turn's content, "<|im_end|>" and "\n" are trained, its header is not.
// plain: the prompt and the response as they are (prompt/response lines only).
std::vector<SftSegment> lay_out(const std::vector<std::pair<std::string, std::string>>& turns, const std::string& tmpl,
                                const std::string& eos) {
  std::vector<SftSegment> out;
  for (const auto& [role, content] : turns) {
    const bool assistant = role == "assistant";
    if (tmpl == "chatml") {
      out.push_back({"<|im_start|>" + role + "\n", false});
      out.push_back({content + "<|im_end|>\n", assistant});
      if (assistant && !eos.empty() && eos != "<|im_end|>") out.push_back({eos, true});
    } else if (tmpl == "plain") {
      out.push_back({content + (assistant ? with_eos(content, eos) : ""), assistant});
    } else {  // simple
      if (role == "system") out.push_back({"### System:\n" + content + "\n\n", false});
      else if (role == "user") out.push_back({"### Instruction:\n" + content + "\n\n### Response:\n", false});
      else out.push_back({content + with_eos(content, eos) + "\n\n", true});
    }
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> turns_of(const json& j, const SftOptions& o, const std::string& tmpl,
                                                          const std::string& where) {
  std::vector<std::pair<std::string, std::string>> turns;
  if (j.contains(o.messages_field)) {
    const json& m = j[o.messages_field];
    if (!m.is_array()) throw DataError("\"" + o.messages_field + "\" must be a list of {role, content}", where);
    for (const auto& turn : m) {
      if (!turn.is_object() || !turn.contains("role") || !turn["role"].is_string() || !turn.contains("content") ||
          !turn["content"].is_string())
        throw DataError("each message needs string \"role\" and \"content\"", where);
      const std::string role = turn["role"];
      if (role != "system" && role != "user" && role != "assistant")
        throw DataError("unknown role \"" + role + "\" (system, user or assistant)", where);
      turns.emplace_back(role, turn["content"].get<std::string>());
    }
    if (tmpl == "plain") throw DataError("chat_template \"plain\" takes prompt/response lines, not messages", where);
    return turns;
  }
  for (const auto* field : {&o.prompt_field, &o.response_field})
    if (!j.contains(*field) || !j[*field].is_string())
      throw DataError("needs string \"" + o.prompt_field + "\" and \"" + o.response_field + "\" fields, or \"" + o.messages_field +
                          "\"",
                      where);
  turns.emplace_back("user", j[o.prompt_field].get<std::string>());
  turns.emplace_back("assistant", j[o.response_field].get<std::string>());
  return turns;
}

// A line as chat messages for a Jinja template: its messages as written (any role; keys with
// null values dropped, as apply_chat_template drops them), or prompt/response as [user, assistant].
json messages_of(const json& j, const SftOptions& o, const std::string& where) {
  json out = json::array();
  if (j.contains(o.messages_field)) {
    const json& m = j[o.messages_field];
    if (!m.is_array()) throw DataError("\"" + o.messages_field + "\" must be a list of {role, content}", where);
    for (const auto& turn : m) {
      if (!turn.is_object() || !turn.contains("role") || !turn["role"].is_string())
        throw DataError("each message needs a string \"role\"", where);
      json kept = json::object();
      for (const auto& [k, v] : turn.items())
        if (!v.is_null()) kept[k] = v;
      out.push_back(std::move(kept));
    }
    return out;
  }
  for (const auto* field : {&o.prompt_field, &o.response_field})
    if (!j.contains(*field) || !j[*field].is_string())
      throw DataError("needs string \"" + o.prompt_field + "\" and \"" + o.response_field + "\" fields, or \"" + o.messages_field +
                          "\"",
                      where);
  out.push_back({{"role", "user"}, {"content", j[o.prompt_field]}});
  out.push_back({{"role", "assistant"}, {"content", j[o.response_field]}});
  return out;
}

// The example's text, tokenized once as a whole (as transformers' apply_chat_template and TRL do:
// a cut between segments would change the tokens, e.g. a "▁" prepended to each piece), and its
// labels as return_assistant_tokens_mask gives them: a token is trained when a character of a
// trained segment is one it came from (its offsets overlap the segment); tokens with empty
// offsets are not.
void tokenize(const HfTokenizer& tok, const std::vector<SftSegment>& segments, std::vector<int64_t>& ids, std::vector<int64_t>& labels) {
  std::string text;
  std::vector<std::pair<size_t, size_t>> trained;  // byte ranges of text, in order, not touching
  for (const SftSegment& s : segments) {
    if (s.trained && !s.text.empty()) {
      if (!trained.empty() && trained.back().second == text.size()) trained.back().second += s.text.size();
      else trained.emplace_back(text.size(), text.size() + s.text.size());
    }
    text += s.text;
  }
  HfTokenizer::Encoding enc = tok.encode_with_offsets(text, /*add_special_tokens=*/false);
  labels.assign(enc.ids.size(), -100);
  for (size_t k = 0; k < enc.ids.size(); ++k) {
    const auto [b, e] = enc.offsets[k];
    if (b >= e) continue;
    // The first trained range ending after b trains the token if it starts before e.
    auto it = std::lower_bound(trained.begin(), trained.end(), b, [](const std::pair<size_t, size_t>& r, size_t at) { return r.second <= at; });
    if (it != trained.end() && it->first < e) labels[k] = enc.ids[k];
  }
  ids = std::move(enc.ids);
}

Example make_example(const std::vector<int64_t>& ids, const std::vector<int64_t>& labels, const std::vector<int64_t>& positions) {
  Example e{{"input_ids", at::tensor(ids, at::kLong)}, {"labels", at::tensor(labels, at::kLong)}};
  if (!positions.empty()) e["position_ids"] = at::tensor(positions, at::kLong);
  return e;
}

}  // namespace

DatasetPtr load_sft(const SftOptions& o) {
  if (!o.tokenizer) throw RecipeError("data.sft: needs a tokenizer (a tokenizer.json path or data.tokenizer(...))");
  if (o.max_length < 2) throw RecipeError("data.sft: max_length must be >= 2");
  const std::unique_ptr<SftTemplateLayout> jinja = template_layout(o.chat_template, o.tokenizer_path, o.eos_token, "data.sft");
  const std::string builtin = o.chat_template == "auto" ? "simple" : o.chat_template;
  // The tokenizer's start tokens: its post-processor's prefix alone (a template that also appends
  // </s> must not give every example "<s></s>").
  const bool add_bos = o.add_bos.value_or(jinja == nullptr);
  const std::vector<int64_t> bos = add_bos ? o.tokenizer->special_prefix() : std::vector<int64_t>{};
  std::vector<Example> examples;
  int64_t untrained = 0;
  std::vector<int64_t> row_ids, row_labels, row_pos;
  auto flush_row = [&](bool pad) {
    if (row_ids.empty()) return;
    int64_t next = 0;
    while (pad && static_cast<int64_t>(row_ids.size()) < o.max_length) {  // the tail: padding, not trained
      row_ids.push_back(o.pad_token_id);
      row_labels.push_back(-100);
      row_pos.push_back(next++);
    }
    examples.push_back(make_example(row_ids, row_labels, row_pos));
    row_ids.clear(), row_labels.clear(), row_pos.clear();
  };
  auto add = [&](const json& j, const std::string& where) {
    const std::vector<SftSegment> segments = jinja ? jinja->segments(messages_of(j, o, where), tools_of(j, where), kwargs_of(j, where), where)
                                                   : lay_out(turns_of(j, o, builtin, where), builtin, o.eos_token);
    std::vector<int64_t> ids, labels;
    tokenize(*o.tokenizer, segments, ids, labels);
    // The start tokens, unless the text begins with them (a template that writes bos_token).
    if (!bos.empty() && !(ids.size() >= bos.size() && std::equal(bos.begin(), bos.end(), ids.begin()))) {
      ids.insert(ids.begin(), bos.begin(), bos.end());
      labels.insert(labels.begin(), bos.size(), -100);
    }
    if (static_cast<int64_t>(ids.size()) > o.max_length) ids.resize(o.max_length), labels.resize(o.max_length);
    // TRL drops an example left without a trained token (a prompt longer than max_length, a
    // conversation without an assistant turn): it would add steps of loss 0.
    if (std::all_of(labels.begin(), labels.end(), [](int64_t l) { return l == -100; })) {
      ++untrained;
      return;
    }
    if (!o.packing) {
      examples.push_back(make_example(ids, labels, {}));
      return;
    }
    if (static_cast<int64_t>(row_ids.size() + ids.size()) > o.max_length) flush_row(/*pad=*/true);
    for (size_t k = 0; k < ids.size(); ++k) {
      row_ids.push_back(ids[k]);
      row_labels.push_back(k == 0 ? -100 : labels[k]);  // TRL: no label where positions restart (the previous example's end predicts nothing here)
      row_pos.push_back(static_cast<int64_t>(k));
    }
  };
  for_each_json_row(o.path, o.dataset, "\"" + o.messages_field + "\" or \"" + o.prompt_field + "\" and \"" + o.response_field + "\"", add);
  flush_row(/*pad=*/true);
  const std::string source = o.dataset ? o.dataset->describe() : o.path;
  if (untrained > 0 && o.warn)
    o.warn("data.sft: " + std::to_string(untrained) + " example(s) of " + source + " have no trained token (no assistant text, or a prompt of " +
              std::to_string(o.max_length) + " tokens or more) and were left out, as TRL leaves them out");
  if (examples.empty()) throw DataError("no examples with a trained token", source);
  return std::make_shared<ExampleListDataset>(std::move(examples), "data.sft(" + source + ")");
}

}  // namespace runner::data
