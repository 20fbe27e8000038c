// data.preference: preference pairs for DPO, as TRL's DPOTrainer prepares its dataset. Each row
// has a prompt, a chosen and a rejected completion, either as text ("standard": strings) or as
// chat messages ("conversational": lists of {role, content}); a row without a prompt has it
// implicit in both completions and it is extracted as TRL's extract_prompt does (their common
// leading characters, or messages). Standard rows: the end-of-text token is appended to each
// completion that lacks it and prompt, prompt+chosen and prompt+rejected are tokenized with the
// tokenizer's special tokens; conversational rows are rendered by the chat template (the prompt
// with the generation prompt) and tokenized without them. The completion starts where the
// tokenized prompt and prompt+completion first differ (TRL's common_prefix_length), so tokens
// merged across the boundary never train on a context the model does not see. Examples hold
// prompt_ids, chosen_ids and rejected_ids (int64); data.preference_collator batches them.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/data/dataset.h"
#include "runtime/data/tokenizers/hf_tokenizer.h"

namespace runner::data {

struct PreferenceOptions {
  std::string path;  // JSON Lines, or:
  DatasetPtr dataset;  // a dataset's rows (data.parquet, data.arrow, data.hf_dataset)
  std::shared_ptr<const HfTokenizer> tokenizer;
  std::string tokenizer_path;  // its folder's chat template and tokenizer_config.json
  // Conversational rows: "auto" / "tokenizer" (the folder's template), a template name of the
  // folder, or a Jinja template itself (sft_template.h's template_layout).
  std::string chat_template = "auto";
  std::string eos_token;  // appended to standard completions; "" = none
  // TRL's max_length with truncation_mode "keep_start": a row whose prompt alone has max_length
  // tokens or more is left out (the collator would cut every completion token). 0: no limit.
  int64_t max_length = 1024;
  bool keep_end = false;  // truncation_mode "keep_end": nothing is left out
  std::string prompt_field = "prompt", chosen_field = "chosen", rejected_field = "rejected";
  std::function<void(const std::string&)> warn;  // rows left out, a prompt cut at a merged token
};

// DataError naming file:line (or the dataset row) for a row without string or message-list
// chosen/rejected, mixed standard and conversational fields, or a template that fails.
DatasetPtr load_preference(const PreferenceOptions& options);

// data.reward_pairs: the same rows as TRL's RewardTrainer prepares them: each completion with
// its prompt (when the row has one; none is extracted), standard rows with the end-of-text token
// appended to each completion that lacks it and tokenized with special tokens, conversational rows
// rendered whole by the chat template (no generation prompt). A row whose chosen or rejected
// sequence has more than max_length tokens is left out (0: no limit; truncation does not apply).
// Examples hold chosen_ids and rejected_ids (int64) and, when the row has a `margin_field`
// number, margin (fp32); data.reward_collator batches them.
DatasetPtr load_reward_pairs(const PreferenceOptions& options, const std::string& margin_field = "margin");

// `text` with `eos` appended unless it already ends with it (TRL's add_eos).
std::string with_eos(const std::string& text, const std::string& eos);

class SftTemplateLayout;

// How conversational pair rows become ids: the chat template (options.chat_template), built on
// first use since standard rows need none.
class PairRenderer {
 public:
  PairRenderer(const PreferenceOptions& options, std::string fn);  // fn: "data.preference", for messages; options copied
  ~PairRenderer();
  // `messages` rendered with `row`'s tools and chat_template_kwargs and tokenized without special
  // tokens; DataError at `where` when there is no Jinja template.
  std::vector<int64_t> encode(const nlohmann::ordered_json& messages, const nlohmann::ordered_json& row, bool generation_prompt,
                              const std::string& where);

 private:
  std::shared_ptr<const HfTokenizer> tokenizer_;
  std::string chat_template_, tokenizer_path_, eos_token_, fn_;
  std::unique_ptr<SftTemplateLayout> jinja_;
  bool looked_ = false;
};

}  // namespace runner::data
