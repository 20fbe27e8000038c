// data.sft{path = "train.jsonl" | dataset = data.parquet{...}, tokenizer = "tokenizer.json" | data.tokenizer(...), max_length = 1024,
//          chat_template = "auto" | "tokenizer" | "simple" | "chatml" | "plain" | "<Jinja template>",
//          packing = false, eos_token, add_bos (built-in layouts: true; templates: false),
//          prompt_field = "prompt", response_field = "response", messages_field = "messages",
//          pad_token_id = 0}: supervised fine-tuning examples (runtime/data/sources/sft.h).
#include "bindings/lua/data_binding.h"
#include "bindings/lua/data_parts.h"
#include "runtime/core/errors.h"
#include "runtime/data/sources/sft.h"
#include "runtime/log/log.h"

namespace runner::lua {

RowSource row_source(lua_State* L, Options& o, const std::string& fn, const char* example_file) {
  RowSource r;
  const std::string file = std::string("path = \"") + example_file + "\"";
  if (o.has("dataset")) {
    if (o.has("path")) throw RecipeError(fn + ": give " + file + " or dataset = <a data.parquet/arrow/hf_dataset>, not both");
    lua_getfield(L, 1, "dataset");
    r.dataset = check_dataset(L, -1);
    lua_pop(L, 1);
  } else {
    if (!o.has("path")) throw RecipeError(fn + ": needs " + file + " (or dataset = data.parquet{...})");
    r.path = checked_path(o.string("path", ""), fn);
  }
  r.tokenizer = tokenizer_option(L, o, fn);
  return r;
}

std::shared_ptr<data::HfTokenizer> tokenizer_option(lua_State* L, Options& o, const std::string& fn) {
  if (!o.has("tokenizer")) throw RecipeError(fn + ": needs tokenizer = \"tokenizer.json\" (or a data.tokenizer)");
  lua_getfield(L, 1, "tokenizer");
  std::shared_ptr<data::HfTokenizer> tok = tokenizer_at(L, -1);
  lua_pop(L, 1);
  return tok ? tok : data::HfTokenizer::load(checked_path(o.string("tokenizer", ""), fn));
}

std::string eos_token_option(Options& o, const data::HfTokenizer& tok, const std::string& fn) {
  const std::string eos = o.string("eos_token", data::tokenizer_config_eos(tok.path()));
  if (!eos.empty() && tok.token_to_id(eos) < 0) throw RecipeError(fn + ": eos_token \"" + eos + "\" is not a token of the tokenizer");
  return eos;
}

int d_sft(lua_State* L) {
  Options o(L, 1, "data.sft");
  data::SftOptions s;
  RowSource rows = row_source(L, o, "data.sft", "train.jsonl");
  s.path = rows.path, s.dataset = rows.dataset, s.tokenizer = rows.tokenizer;
  const std::shared_ptr<data::HfTokenizer>& tok = rows.tokenizer;
  s.tokenizer_path = tok->path();  // the model folder: its chat template and tokenizer_config.json
  s.max_length = o.integer("max_length", s.max_length);
  s.chat_template = o.string("chat_template", s.chat_template);
  s.packing = o.boolean("packing", s.packing);
  s.eos_token = eos_token_option(o, *tok, "data.sft");
  if (o.has("add_bos")) s.add_bos = o.boolean("add_bos", true);
  s.prompt_field = o.string("prompt_field", s.prompt_field);
  s.response_field = o.string("response_field", s.response_field);
  s.messages_field = o.string("messages_field", s.messages_field);
  s.pad_token_id = o.integer("pad_token_id", s.pad_token_id);
  o.finish();
  s.warn = [](const std::string& m) { log::warn(m); };
  push_dataset(L, data::load_sft(s));
  return 1;
}

}  // namespace runner::lua
