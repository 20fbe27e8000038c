// data.pad_collator{...}, data.lm_collator{...} and data.mlm_collator{...}: collator userdata a recipe gives as
// `data_collator`. Calling one from Lua, collator(examples), returns the batch table, so a
// Lua data_collator function can wrap it.
#include <algorithm>

#include "bindings/lua/data_binding.h"
#include "bindings/lua/data_parts.h"
#include "bindings/lua/lua_module.h"
#include "runtime/core/errors.h"
#include "runtime/data/mlm_collator.h"

namespace runner::lua {

namespace {

struct CollatorBox {
  CollatorSpec spec;
};

// The batch a recipe's data_collator function is building (BatchOriginScope); Lua runs on one
// thread, the one that set it.
thread_local const data::BatchOrigin* t_origin = nullptr;

CollatorBox* collator_box(lua_State* L, int idx) {
  void* p = lua_touserdata(L, idx);
  if (!p || !lua_getmetatable(L, idx)) return nullptr;
  luaL_getmetatable(L, kCollatorMeta);
  const bool same = lua_rawequal(L, -1, -2);
  lua_pop(L, 2);
  return same ? static_cast<CollatorBox*>(p) : nullptr;
}

int collator_gc(lua_State* L) {
  static_cast<CollatorBox*>(lua_touserdata(L, 1))->~CollatorBox();
  return 0;
}

int collator_tostring(lua_State* L) {
  const CollatorBox* box = collator_box(L, 1);
  lua_pushstring(L, ("Collator(" + (box ? box->spec.name : std::string("?")) + ")").c_str());
  return 1;
}

// collator{example, example, ...} → batch table
int collator_call(lua_State* L) {
  const CollatorBox* box = collator_box(L, 1);
  if (!box) throw RecipeError("not a collator");
  if (!lua_istable(L, 2)) throw RecipeError(box->spec.name + ": expected a list of example tables, got " + luaL_typename(L, 2));
  std::vector<data::Example> examples;
  const size_t n = lua_objlen(L, 2);
  for (size_t i = 1; i <= n; ++i) {
    lua_rawgeti(L, 2, static_cast<int>(i));
    if (!lua_istable(L, -1)) {
      lua_pop(L, 1);
      throw RecipeError(box->spec.name + ": example " + std::to_string(i) + " is not a table");
    }
    struct Pop {
      lua_State* L;
      ~Pop() { lua_pop(L, 1); }
    } pop{L};
    examples.push_back(to_tensor_map(L, -1, box->spec.name + " example " + std::to_string(i)));
  }
  const data::Batch batch = t_origin && t_origin->indices.size() == examples.size() ? box->spec.collate(examples, *t_origin)
                                                                                     : box->spec.collate(examples);
  push_tensor_map(L, batch);
  return 1;
}

// What every padding collator takes (multiple_choice_collator only these): pad_token_id,
// pad_to_multiple_of, padding_side.
data::PadOptions pad_layout(Options& o, const char* fn) {
  data::PadOptions p;
  p.pad_token_id = o.integer("pad_token_id", 0);
  p.pad_to_multiple_of = o.integer("pad_to_multiple_of", 0);
  if (p.pad_to_multiple_of < 0) throw RecipeError(std::string(fn) + ": pad_to_multiple_of must be >= 0 (0: no rounding)");
  const std::string side = o.string("padding_side", "right");
  if (side != "right" && side != "left") throw RecipeError(std::string(fn) + ": padding_side must be \"right\" or \"left\", got \"" + side + "\"");
  p.pad_left = side == "left";
  return p;
}

// The padding options every collator takes; the caller finishes `o`.
data::PadOptions pad_options(lua_State* L, Options& o, const char* fn) {
  data::PadOptions p = pad_layout(o, fn);
  p.label_pad_id = o.integer("label_pad_id", -100);
  p.attention_mask = o.boolean("attention_mask", true);
  if (o.has("fields")) {
    lua_getfield(L, 1, "fields");
    std::vector<std::string> fields;
    bool ok = lua_istable(L, -1);
    for (size_t i = 1; ok && i <= lua_objlen(L, -1); ++i) {
      lua_rawgeti(L, -1, static_cast<int>(i));
      ok = lua_type(L, -1) == LUA_TSTRING;
      if (ok) fields.emplace_back(lua_tostring(L, -1));
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
    if (!ok) throw RecipeError(std::string(fn) + ": fields must be a list of field names, like {\"input_ids\", \"labels\"}");
    p.fields = std::move(fields);
  }
  return p;
}

data::PadOptions pad_options(lua_State* L, const char* fn) {
  Options o(L, 1, fn);
  data::PadOptions p = pad_options(L, o, fn);
  o.finish();
  return p;
}

int d_pad_collator(lua_State* L) {
  push_collator(L, {data::pad_collate(pad_options(L, "data.pad_collator")), true, "data.pad_collator"});
  return 1;
}

int d_lm_collator(lua_State* L) {
  push_collator(L, {data::lm_collate(pad_options(L, "data.lm_collator")), true, "data.lm_collator"});
  return 1;
}

// data.flattening_collator{separator_id = -100}: transformers' DataCollatorWithFlattening.
int d_flattening_collator(lua_State* L) {
  Options o(L, 1, "data.flattening_collator");
  const int64_t separator = o.integer("separator_id", -100);
  o.finish();
  push_collator(L, {data::flattening_collate(separator), true, "data.flattening_collator"});
  return 1;
}

// data.multiple_choice_collator{pad_token_id = 0, pad_to_multiple_of = 0, padding_side = "right"}:
// transformers' DataCollatorForMultipleChoice (runtime/data/collator.h).
int d_multiple_choice_collator(lua_State* L) {
  Options o(L, 1, "data.multiple_choice_collator");
  const data::PadOptions p = pad_layout(o, "data.multiple_choice_collator");
  o.finish();
  push_collator(L, {data::multiple_choice_collate(p), true, "data.multiple_choice_collator"});
  return 1;
}

// data.mlm_collator{tokenizer = tok, mlm_probability = 0.15, mask_replace_prob = 0.8,
// random_replace_prob = 0.1, whole_word_mask = false, seed, ...}: transformers'
// DataCollatorForLanguageModeling(tok, mlm=True). The tokenizer gives the mask token, the padding id, the vocabulary to draw
// replacements from (len(tok)) and the special tokens never masked: those its folder names
// (tokenizer_config.json) and the added tokens marked special. Without one, mask_token_id and
// vocab_size are required (special_ids, pad_token_id optional).
int d_mlm_collator(lua_State* L) {
  const char* fn = "data.mlm_collator";
  Options o(L, 1, fn);
  std::shared_ptr<data::HfTokenizer> tok;
  if (o.has("tokenizer")) {
    lua_getfield(L, 1, "tokenizer");
    tok = tokenizer_at(L, -1);
    lua_pop(L, 1);
    if (!tok) throw RecipeError(std::string(fn) + ": tokenizer must be a data.tokenizer(...)");
  }
  data::MlmOptions m;
  m.pad = pad_options(L, o, fn);
  if (tok) {
    m.vocab_size = tok->vocab_size();
    m.special_ids = tok->special_ids();
    for (const auto& [key, content] : data::folder_special_tokens(tok->path()))
      if (const int64_t id = tok->token_to_id(content); id >= 0) m.special_ids.push_back(id);  // mlm_collate sorts them
    // The folder's token, else the tokenizer classes' defaults (BertTokenizer's [MASK], RobertaTokenizer's <mask>).
    m.mask_token_id = special_token_id(*tok, "mask_token", {"[MASK]", "<mask>"});
    if (m.mask_token_id < 0 && !o.has("mask_token_id"))
      throw RecipeError(std::string(fn) + ": the tokenizer has no mask token (tokenizer_config.json's mask_token next to " + tok->path() +
                        "), which masked language modelling needs; give mask_token_id");
    if (const int64_t pad = special_token_id(*tok, "pad_token", {"[PAD]", "<pad>"}); pad >= 0 && !o.has("pad_token_id")) m.pad.pad_token_id = pad;
  }
  if (o.has("mask_token_id") || !tok) m.mask_token_id = o.integer("mask_token_id", -1);
  if (o.has("vocab_size") || !tok) m.vocab_size = o.integer("vocab_size", 0);
  if (o.has("special_ids")) m.special_ids = o.int_list("special_ids", {});
  m.mlm_probability = o.number("mlm_probability", 0.15);
  m.mask_replace_prob = o.number("mask_replace_prob", 0.8);
  m.random_replace_prob = o.number("random_replace_prob", 0.1);
  m.whole_word_mask = o.boolean("whole_word_mask", false);
  if (o.has("seed")) {
    const int64_t seed = o.integer("seed", 0);
    if (seed < 0) throw RecipeError(std::string(fn) + ": seed must be >= 0");
    m.seed = static_cast<uint64_t>(seed);
  }
  o.finish();
  if (!tok && m.mask_token_id < 0) throw RecipeError(std::string(fn) + ": give tokenizer = data.tokenizer(...), or mask_token_id and vocab_size");
  try {
    push_collator(L, {data::mlm_collate(std::move(m)), true, fn});
  } catch (const ArgumentError& e) {
    throw RecipeError(std::string(fn) + ": " + e.message());
  }
  return 1;
}

}  // namespace

BatchOriginScope::BatchOriginScope(const data::BatchOrigin& origin) : previous_(t_origin) { t_origin = &origin; }
BatchOriginScope::~BatchOriginScope() { t_origin = previous_; }

void push_collator(lua_State* L, CollatorSpec spec) {
  void* mem = lua_newuserdata(L, sizeof(CollatorBox));
  new (mem) CollatorBox{std::move(spec)};
  luaL_getmetatable(L, kCollatorMeta);
  lua_setmetatable(L, -2);
}

std::optional<CollatorSpec> test_collator(lua_State* L, int idx) {
  const CollatorBox* box = collator_box(L, idx);
  if (!box) return std::nullopt;
  return box->spec;
}

void register_collator_type(lua_State* L) {
  luaL_newmetatable(L, kCollatorMeta);
  set_functions(L, {{"__gc", collator_gc}, {"__tostring", guarded<collator_tostring>}, {"__call", guarded<collator_call>}});
  lua_pop(L, 1);
}

void add_collator_functions(lua_State* L) {
  set_functions(L, {{"pad_collator", guarded<d_pad_collator>}, {"lm_collator", guarded<d_lm_collator>}, {"mlm_collator", guarded<d_mlm_collator>},
                    {"flattening_collator", guarded<d_flattening_collator>}, {"multiple_choice_collator", guarded<d_multiple_choice_collator>}});
}

}  // namespace runner::lua
