// data.sft: supervised fine-tuning examples from JSONL, as TRL's SFTTrainer prepares them for
// a causal LM. Each line is either {"prompt": ..., "response": ...} or {"messages": [{"role":
// "system"|"user"|"assistant", "content": ...}, ...]}; the text is laid out by the model's own
// Jinja chat template (sft_template.h: it also says which characters are the assistant's) or
// a built-in layout, tokenized whole with an HF tokenizer.json as apply_chat_template does
// (without the tokenizer's template tokens), and labels are the input ids with every token
// that no assistant character came from (HfTokenizer::encode_with_offsets) set to -100, as
// return_assistant_tokens_mask marks them. With packing, examples are concatenated into rows of
// exactly max_length whose position_ids restart at each example: the Llama family then keeps
// attention inside each example, as transformers does.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "runtime/data/dataset.h"
#include "runtime/data/tokenizers/hf_tokenizer.h"

namespace runner::data {

struct SftOptions {
  std::string path;
  // Instead of a JSONL path: a dataset's rows (data.parquet, data.arrow, data.hf_dataset), their
  // text fields read as a line's JSON object.
  DatasetPtr dataset;
  std::shared_ptr<const HfTokenizer> tokenizer;
  std::string tokenizer_path;     // its folder's chat template and tokenizer_config.json are the model's
  int64_t max_length = 1024;      // longer examples are cut from the right (HF's truncation_side)
  // "auto": the Jinja templates of the tokenizer's folder (find_chat_templates: "tool_use" for
  // lines with tools, else "default") when it has any, else "simple"; "tokenizer": those,
  // required; "NAME": the folder's template of that name; a Jinja template itself (text
  // containing "{%" or "{{"); or a built-in layout: "simple", "chatml", "plain" (sft.cpp).
  std::string chat_template = "auto";
  std::string prompt_field = "prompt", response_field = "response", messages_field = "messages";
  // Built-in layouts: appended to each response (trained), "" = none. Jinja templates end turns
  // themselves (TRL appends nothing to conversations either); there it is the template's
  // eos_token, "" = tokenizer_config.json's.
  std::string eos_token;
  // The tokenizer's start tokens (its post-processor's prefix, e.g. <s>; never its suffix) at
  // each example's start, unless its text already begins with them. Unset: true for the built-in
  // layouts, false for Jinja templates, which write bos_token themselves where the model wants
  // it (apply_chat_template(tokenize=True) adds nothing).
  std::optional<bool> add_bos;
  bool packing = false;
  int64_t pad_token_id = 0;       // fills the end of the last packed row
  // Where a warning goes (examples left out for having no trained token); unset: nowhere.
  std::function<void(const std::string&)> warn;
};

// DataError naming the file and line for a malformed line, a missing field, an unknown role
// (built-in layouts) or a conversation the chat template refuses.
DatasetPtr load_sft(const SftOptions& options);

}  // namespace runner::data
