// data.preference{path = "pairs.jsonl" | dataset = data.parquet{...}, tokenizer = "tokenizer.json" | data.tokenizer(...),
//                 max_length = 1024, truncation_mode = "keep_start", chat_template = "auto", eos_token,
//                 prompt_field = "prompt", chosen_field = "chosen", rejected_field = "rejected"}:
// preference pairs for DPO (runtime/data/sources/preference.h), and
// data.preference_collator{pad_token_id = 0, max_length = 1024 (0: no cut), truncation_mode = "keep_start", pad_to_multiple_of = 0}:
// TRL's DataCollatorForPreference (runtime/data/preference_collator.h).
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

int d_preference(lua_State* L) {
  Options o(L, 1, "data.preference");
  data::PreferenceOptions p;
  RowSource rows = row_source(L, o, "data.preference", "pairs.jsonl");
  p.path = rows.path, p.dataset = rows.dataset, p.tokenizer = rows.tokenizer;
  const std::shared_ptr<data::HfTokenizer>& tok = rows.tokenizer;
  p.tokenizer_path = tok->path();
  p.max_length = o.integer("max_length", p.max_length);
  p.keep_end = keep_end(o, "data.preference");
  p.chat_template = o.string("chat_template", p.chat_template);
  p.eos_token = eos_token_option(o, *tok, "data.preference");
  p.prompt_field = o.string("prompt_field", p.prompt_field);
  p.chosen_field = o.string("chosen_field", p.chosen_field);
  p.rejected_field = o.string("rejected_field", p.rejected_field);
  o.finish();
  p.warn = [](const std::string& m) { log::warn(m); };
  push_dataset(L, data::load_preference(p));
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
  set_functions(L, {{"preference", guarded<d_preference>}, {"preference_collator", guarded<d_preference_collator>}});
}

}  // namespace runner::lua
