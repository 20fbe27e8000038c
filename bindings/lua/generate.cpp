// model:generate(input_ids, {...}): text generation from Lua (runtime/models/generation.h).
// Options are transformers' generate() keywords; eos_token_id and pad_token_id default to the
// model's config (config.json's ids for from_pretrained / models.llama).
#include "bindings/lua/lua_module.h"
#include "runtime/core/errors.h"
#include "runtime/models/generation.h"

namespace runner::lua {

namespace {

// Reads the options table at idx; its attention_mask (if any) goes to *mask.
models::GenerationConfig generation_options(lua_State* L, int idx, const models::Module& model, at::Tensor* mask) {
  models::GenerationConfig g = models::generation_defaults(model);
  Options o(L, idx, "generate");
  *mask = o.tensor("attention_mask");
  g.max_new_tokens = o.integer("max_new_tokens", g.max_new_tokens);
  if (o.has("max_length")) g.max_length = o.integer("max_length", 0);  // with the prompt; max_new_tokens wins
  g.repetition_penalty = o.number("repetition_penalty", g.repetition_penalty);
  g.do_sample = o.boolean("do_sample", g.do_sample);
  g.temperature = o.number("temperature", g.temperature);
  g.top_k = o.integer("top_k", g.top_k);
  g.top_p = o.number("top_p", g.top_p);
  g.num_beams = o.integer("num_beams", g.num_beams);
  g.length_penalty = o.number("length_penalty", g.length_penalty);
  if (o.has("early_stopping")) {  // true, false or "never", as in transformers
    lua_getfield(L, idx, "early_stopping");
    const bool is_bool = lua_isboolean(L, -1);
    lua_pop(L, 1);
    g.early_stopping = is_bool ? (o.boolean("early_stopping", false) ? "true" : "false") : o.string("early_stopping", "false");
  }
  if (o.has("eos_token_id")) {  // one id or a list
    lua_getfield(L, idx, "eos_token_id");
    const bool list = lua_istable(L, -1);
    lua_pop(L, 1);
    g.eos_token_id = list ? o.int_list("eos_token_id", {}) : std::vector<int64_t>{o.integer("eos_token_id", 0)};
  }
  g.pad_token_id = o.integer("pad_token_id", g.pad_token_id);
  o.finish();
  return g;
}

}  // namespace

// model:generate(input_ids (B, T) or (T)[, {attention_mask = ..., max_new_tokens = ..., ...}])
// → ids (B, T + n), or (T + n) for a 1-D prompt.
int module_generate(lua_State* L) {
  auto model = check_module(L, 1);
  at::Tensor ids = check_tensor(L, 2);
  at::Tensor mask;
  const models::GenerationConfig g = generation_options(L, 3, *model, &mask);
  const bool single = ids.dim() == 1;
  if (single) ids = ids.unsqueeze(0);
  if (mask.defined() && mask.dim() == 1) mask = mask.unsqueeze(0);
  at::Tensor out = models::generate(*model, ids.to(at::kLong), mask, g);
  push_tensor(L, single ? out.squeeze(0) : out);
  return 1;
}

}  // namespace runner::lua
