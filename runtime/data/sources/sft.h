// data.sft: supervised fine-tuning examples from JSONL, as TRL's SFTTrainer prepares them for
// a causal LM. Each line is either {"prompt": ..., "response": ...} or {"messages": [{"role":
// "system"|"user"|"assistant", "content": ...}, ...]}; the text is laid out by a documented
// template, tokenized with an HF tokenizer.json segment by segment (so the boundary between
// what the model reads and what it learns to write is exact), and labels are the input ids
// with everything but the responses (assistant turns) set to -100. With packing, examples are
// concatenated into rows of exactly max_length whose position_ids restart at each example:
// the Llama family then keeps attention inside each example, as transformers does.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "runtime/data/dataset.h"
#include "runtime/data/tokenizers/hf_tokenizer.h"

namespace runner::data {

struct SftOptions {
  std::string path;
  std::shared_ptr<const HfTokenizer> tokenizer;
  std::string tokenizer_path;     // for error messages
  int64_t max_length = 1024;      // longer examples are cut from the right (HF's truncation_side)
  std::string chat_template = "simple";  // simple | chatml | plain (sft.cpp lays them out)
  std::string prompt_field = "prompt", response_field = "response", messages_field = "messages";
  std::string eos_token;          // appended to each response (trained); "" = none
  bool add_bos = true;            // the tokenizer's template tokens (e.g. <s>) at each example's start
  bool packing = false;
  int64_t pad_token_id = 0;       // fills the end of the last packed row
};

// DataError naming the file and line for a malformed line, a missing field or an unknown role.
DatasetPtr load_sft(const SftOptions& options);

}  // namespace runner::data
