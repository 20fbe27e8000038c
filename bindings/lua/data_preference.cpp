// data.preference{path = "pairs.jsonl" | dataset = data.parquet{...}, tokenizer = "tokenizer.json" | data.tokenizer(...),
//                 max_length = 1024, truncation_mode = "keep_start", chat_template = "auto", eos_token,
//                 prompt_field = "prompt", chosen_field = "chosen", rejected_field = "rejected"}:
// preference pairs for DPO (runtime/data/sources/preference.h), and
// data.preference_collator{pad_token_id = 0, max_length = 1024 (0: no cut), truncation_mode = "keep_start", pad_to_multiple_of = 0}:
// TRL's DataCollatorForPreference (runtime/data/preference_collator.h);
// data.reward_pairs{path | dataset, tokenizer, max_length = 1024, chat_template, eos_token, *_field, margin_field = "margin"}:
// the pairs as TRL's RewardTrainer prepares them, and data.reward_collator{pad_token_id | tokenizer, pad_to_multiple_of = 0}.
#include "bindings/lua/data_binding.h"
#include "bindings/lua/data_parts.h"
#include "runtime/core/errors.h"
#include "runtime/data/preference_collator.h"
#include "runtime/data/sources/preference.h"
#include "runtime/log/log.h"

namespace runner::lua {

namespace {

bool keep_end(Options& o, const char* fn) {
  const std::string mode = o.string("truncation_mode", "keep_start");
  if (mode != "keep_start" && mode != "keep_end")
    throw RecipeError(std::string(fn) + ": truncation_mode must be \"keep_start\" or \"keep_end\", got \"" + mode + "\"");
  return mode == "keep_end";
}

// What data.preference and data.reward_pairs both read.
data::PreferenceOptions pair_options(lua_State* L, Options& o, const char* fn) {
  data::PreferenceOptions p;
  RowSource rows = row_source(L, o, fn, "pairs.jsonl");
  p.path = rows.path, p.dataset = rows.dataset, p.tokenizer = rows.tokenizer;
  const std::shared_ptr<data::HfTokenizer>& tok = rows.tokenizer;
  p.tokenizer_path = tok->path();
  p.max_length = o.integer("max_length", p.max_length);
  p.chat_template = o.string("chat_template", p.chat_template);
  p.eos_token = eos_token_option(o, *tok, fn);
  p.prompt_field = o.string("prompt_field", p.prompt_field);
  p.chosen_field = o.string("chosen_field", p.chosen_field);
  p.rejected_field = o.string("rejected_field", p.rejected_field);
  p.warn = [](const std::string& m) { log::warn(m); };
  return p;
}

int d_preference(lua_State* L) {
  Options o(L, 1, "data.preference");
  data::PreferenceOptions p = pair_options(L, o, "data.preference");
  p.keep_end = keep_end(o, "data.preference");
  o.finish();
  push_dataset(L, data::load_preference(p));
  return 1;
}

int d_reward_pairs(lua_State* L) {
  Options o(L, 1, "data.reward_pairs");
  const data::PreferenceOptions p = pair_options(L, o, "data.reward_pairs");
  const std::string margin = o.string("margin_field", "margin");
  o.finish();
  push_dataset(L, data::load_reward_pairs(p, margin));
  return 1;
}

// The model scores each row at its last token that is not its pad id: the collator must pad with
// that id, so it is given (or read from the tokenizer as TRL reads it: its pad token, else its
// end-of-text token), never defaulted.
int d_reward_collator(lua_State* L) {
  Options o(L, 1, "data.reward_collator");
  data::PreferenceCollateOptions p;
  if (o.has("pad_token_id") == o.has("tokenizer"))
    throw RecipeError("data.reward_collator: give pad_token_id (the model's: it scores each row at its last token that is not it) or tokenizer = data.tokenizer(...)");
  if (o.has("pad_token_id")) {
    p.pad_token_id = o.integer("pad_token_id", 0);
  } else {
    const std::shared_ptr<data::HfTokenizer> tok = tokenizer_option(L, o, "data.reward_collator");
    p.pad_token_id = special_token_id(*tok, "pad_token", {});
    if (p.pad_token_id < 0) p.pad_token_id = config_eos_token_id(*tok);
    if (p.pad_token_id < 0) throw RecipeError("data.reward_collator: the tokenizer names neither a pad_token nor an eos_token; give pad_token_id");
  }
  p.pad_to_multiple_of = o.integer("pad_to_multiple_of", 0);
  o.finish();
  if (p.pad_to_multiple_of < 0) throw RecipeError("data.reward_collator: pad_to_multiple_of must be >= 0 (0: no rounding)");
  push_collator(L, {data::reward_collate(p), true, "data.reward_collator"});
  return 1;
}

int d_preference_collator(lua_State* L) {
  Options o(L, 1, "data.preference_collator");
  data::PreferenceCollateOptions p;
  p.pad_token_id = o.integer("pad_token_id", 0);
  p.max_length = o.integer("max_length", 1024);  // TRL's DPOConfig.max_length, as data.preference's
  p.keep_end = keep_end(o, "data.preference_collator");
  p.pad_to_multiple_of = o.integer("pad_to_multiple_of", 0);
  o.finish();
  if (p.max_length < 0) throw RecipeError("data.preference_collator: max_length must be >= 0 (0: no cut)");
  if (p.pad_to_multiple_of < 0) throw RecipeError("data.preference_collator: pad_to_multiple_of must be >= 0 (0: no rounding)");
  push_collator(L, {data::preference_collate(p), true, "data.preference_collator"});
  return 1;
}

}  // namespace

void add_preference_functions(lua_State* L) {
  set_functions(L, {{"preference", guarded<d_preference>},
                    {"preference_collator", guarded<d_preference_collator>},
                    {"reward_pairs", guarded<d_reward_pairs>},
                    {"reward_collator", guarded<d_reward_collator>}});
}

}  // namespace runner::lua
