// data.tokenizer("tokenizer.json"): an HF tokenizer (runtime/data/tokenizers) as a userdata
// with tok:encode(text [, {add_special_tokens = true, max_length}]) → int64 tensor,
// tok(text [, text_pair] [, {...}]) → {input_ids, token_type_ids, attention_mask},
// tok(words [, pair_words], {is_split_into_words = true}) → the same and word_ids,
// tok(text [, text_pair], {return_offsets_mapping = true, return_special_tokens_mask = true}) → the
// same and offset_mapping (T, 2: each token's characters), special_tokens_mask,
// tok(text [, text_pair], {max_length, stride, return_overflowing_tokens = true[, truncation = "only_second"]})
// → a list of such tables, one per window,
// tok:decode(ids [, {skip_special_tokens = false}]) → string (ids: a tensor or a list),
// tok:vocab_size(), tok:token_to_id(token) (nil when absent), tok:id_to_token(id).
#include <algorithm>
#include <optional>

#include "bindings/lua/data_binding.h"
#include "bindings/lua/data_parts.h"
#include "bindings/lua/lua_module.h"
#include "runtime/core/errors.h"
#include "runtime/core/utf8.h"
#include "runtime/data/tokenizers/hf_tokenizer.h"

namespace runner::lua {

namespace {

const char* const kTokenizerMeta = "runner.Tokenizer";

struct TokenizerBox {
  std::shared_ptr<data::HfTokenizer> tok;
  // A batch's padding id (special_token_id of pad_token): found once, as it reads the folder's
  // files and a recipe's map calls tok(...) per example.
  std::optional<int64_t> pad_id;
};

TokenizerBox& self_box(lua_State* L) {
  auto* box = static_cast<TokenizerBox*>(luaL_testudata(L, 1, kTokenizerMeta));
  if (!box) throw RecipeError("expected a tokenizer (call its methods with a colon: tok:encode(text))");
  return *box;
}
data::HfTokenizer& self(lua_State* L) { return *self_box(L).tok; }

bool flag(lua_State* L, int idx, const char* name, bool fallback) {
  if (!lua_istable(L, idx)) return fallback;
  lua_getfield(L, idx, name);
  const bool v = lua_isnil(L, -1) ? fallback : lua_toboolean(L, -1) != 0;
  lua_pop(L, 1);
  return v;
}

// An option given as a string or a boolean (transformers' padding and truncation): the string,
// `if_true` for true, `if_false` for false, `fallback` when absent.
std::string string_or_flag(lua_State* L, Options& o, int idx, const char* key, const char* if_true, const char* if_false, const std::string& fallback) {
  if (!o.has(key)) return fallback;
  lua_getfield(L, idx, key);
  const bool is_string = lua_type(L, -1) == LUA_TSTRING;
  lua_pop(L, 1);
  return is_string ? o.string(key, "") : o.boolean(key, true) ? if_true : if_false;
}

// The options encode and tok(...) share: add_special_tokens, max_length (truncation to it);
// tok(...) also is_split_into_words.
struct EncodeOptions {
  bool add_special = true;
  int64_t max_length = 0;
  bool words = false;
  bool offsets = false, special_mask = false;  // tok(...)'s return_offsets_mapping, return_special_tokens_mask
  bool overflow = false;                        // return_overflowing_tokens, with stride and truncation
  int64_t stride = 0;
  std::string truncation;
  std::string padding = "longest", padding_side = "right";  // a batch of texts: "longest" or "max_length"
  bool padding_given = false;
};
EncodeOptions encode_options(lua_State* L, int idx, const char* fn, bool words_allowed = false) {
  EncodeOptions e;
  if (lua_isnoneornil(L, idx)) return e;
  Options o(L, idx, fn);
  e.add_special = o.boolean("add_special_tokens", true);
  e.max_length = o.integer("max_length", 0);
  if (words_allowed) {
    e.words = o.boolean("is_split_into_words", false);
    e.offsets = o.boolean("return_offsets_mapping", false);
    e.special_mask = o.boolean("return_special_tokens_mask", false);
    e.overflow = o.boolean("return_overflowing_tokens", false);
    // A batch (a list of texts): true / "longest", "max_length".
    e.padding = string_or_flag(L, o, idx, "padding", "longest", "", e.padding);
    if (e.padding != "longest" && e.padding != "max_length")
      throw RecipeError(std::string(fn) + ": padding must be true, \"longest\" or \"max_length\" (a batch is one tensor), got \"" + e.padding + "\"");
    e.padding_given = o.has("padding") || o.has("padding_side");
    e.padding_side = o.string("padding_side", e.padding_side);
    if (e.padding_side != "right" && e.padding_side != "left")
      throw RecipeError(std::string(fn) + ": padding_side must be \"right\" or \"left\", got \"" + e.padding_side + "\"");
    e.stride = o.integer("stride", 0);
    // transformers' truncation: true / "longest_first" (runner's only way for a pair), "only_second".
    e.truncation = string_or_flag(L, o, idx, "truncation", "longest_first", "false", "");
    if (!e.truncation.empty() && e.truncation != "longest_first" && e.truncation != "only_second")
      throw RecipeError(std::string(fn) + ": truncation must be true, \"longest_first\" or \"only_second\" (max_length truncates; leave it out not to), got " +
                        (e.truncation == "false" ? e.truncation : "\"" + e.truncation + "\""));
  }
  o.finish();
  if (e.max_length < 0) throw RecipeError(std::string(fn) + ": max_length must be > 0");
  return e;
}

}  // namespace

int64_t config_eos_token_id(const data::HfTokenizer& t) {
  const std::string eos = data::tokenizer_config_eos(t.path());
  return eos.empty() ? -1 : t.token_to_id(eos);
}

int64_t special_token_id(const data::HfTokenizer& t, const char* key, std::initializer_list<const char*> defaults) {
  const auto named = data::folder_special_tokens(t.path());
  if (auto it = named.find(key); it != named.end() && t.token_to_id(it->second) >= 0) return t.token_to_id(it->second);
  const std::vector<int64_t> special = t.special_ids();  // ascending
  for (const char* name : defaults)
    if (const int64_t id = t.token_to_id(name); id >= 0 && std::binary_search(special.begin(), special.end(), id)) return id;
  return -1;
}

namespace {

at::Tensor ids_tensor(const std::vector<int64_t>& ids) { return at::tensor(at::ArrayRef<int64_t>(ids), at::kLong); }

int t_encode(lua_State* L) {
  data::HfTokenizer& t = self(L);
  size_t n = 0;
  const char* s = luaL_checklstring(L, 2, &n);
  const EncodeOptions e = encode_options(L, 3, "tok:encode");
  push_tensor(L, ids_tensor(e.max_length > 0 ? t.encode_typed(std::string_view(s, n), nullptr, e.add_special, e.max_length).ids
                                             : t.encode(std::string_view(s, n), e.add_special)));
  return 1;
}

// tok(text [, text_pair] [, {max_length, add_special_tokens}]): transformers' tokenizer(...),
// {input_ids, token_type_ids, attention_mask} (1-D int64), ready for a padding collator.
std::vector<std::string> word_list(lua_State* L, int idx) {
  std::vector<std::string> words;
  for (size_t i = 1; i <= lua_objlen(L, idx); ++i) {
    lua_rawgeti(L, idx, static_cast<int>(i));
    if (lua_type(L, -1) != LUA_TSTRING) throw RecipeError("tokenizer(words, ...): word " + std::to_string(i) + " is not a string");
    words.emplace_back(lua_tostring(L, -1));
    lua_pop(L, 1);
  }
  return words;
}

// Each byte position of `text` (and its end) as a character index: Python's string indices,
// which transformers' offset_mapping counts in.
std::vector<int64_t> char_indices(std::string_view text) {
  std::vector<int64_t> at(text.size() + 1, 0);
  int64_t chars = 0;
  for (size_t i = 0; i < text.size();) {
    const size_t n = utf8_length(text, i);
    for (size_t k = 0; k < n && i + k < text.size(); ++k) at[i + k] = chars;
    i += n, ++chars;
  }
  at[text.size()] = chars;
  return at;
}

// The fields every tok(...) result has, into the table on top of the stack.
void set_encoding_fields(lua_State* L, at::Tensor ids, at::Tensor type_ids, at::Tensor attention_mask) {
  push_tensor(L, std::move(ids));
  lua_setfield(L, -2, "input_ids");
  push_tensor(L, std::move(type_ids));
  lua_setfield(L, -2, "token_type_ids");
  push_tensor(L, std::move(attention_mask));
  lua_setfield(L, -2, "attention_mask");
}

// tok(text [, text_pair], {return_offsets_mapping, return_special_tokens_mask, ...}): the
// encoding with where each token came from; `chars` are char_indices of the text and its pair.
void push_spanned(lua_State* L, const data::HfTokenizer::SpannedEncoding& enc, const std::vector<int64_t> chars[2], const EncodeOptions& e) {
  const int64_t n = static_cast<int64_t>(enc.ids.size());
  lua_createtable(L, 0, 5);
  set_encoding_fields(L, ids_tensor(enc.ids), ids_tensor(enc.type_ids), at::ones({n}, at::kLong));
  if (e.offsets) {
    at::Tensor offsets = at::zeros({n, 2}, at::kLong);
    auto o = offsets.accessor<int64_t, 2>();
    for (int64_t i = 0; i < n; ++i) {
      const int k = static_cast<int>(enc.sequence_ids[static_cast<size_t>(i)]);
      if (k < 0) continue;  // a special token: (0, 0)
      o[i][0] = chars[k][enc.offsets[static_cast<size_t>(i)].first];
      o[i][1] = chars[k][enc.offsets[static_cast<size_t>(i)].second];
    }
    push_tensor(L, offsets);
    lua_setfield(L, -2, "offset_mapping");
  }
  if (e.special_mask) {
    std::vector<int64_t> special;
    for (int64_t k : enc.sequence_ids) special.push_back(k < 0 ? 1 : 0);
    push_tensor(L, ids_tensor(special));
    lua_setfield(L, -2, "special_tokens_mask");
  }
}

// return_overflowing_tokens: a Lua list of the windows' encodings (transformers' one row per
// window, overflow_to_sample_mapping being the call itself).
int push_windows(lua_State* L, const data::HfTokenizer& t, std::string_view a, const std::string_view* b, const std::vector<int64_t> chars[2],
                 const EncodeOptions& e) {
  const char* fn = "tokenizer(text, text_pair, options)";
  if (e.max_length <= 0) throw RecipeError(std::string(fn) + ": return_overflowing_tokens needs max_length");
  if (b && e.truncation != "only_second")
    throw RecipeError(std::string(fn) + ": return_overflowing_tokens of a pair needs truncation = \"only_second\" (the second text is cut into windows)");
  if (e.stride < 0) throw RecipeError(std::string(fn) + ": stride must be >= 0");
  if (!e.add_special) throw RecipeError(std::string(fn) + ": return_overflowing_tokens lays out each window with its special tokens (add_special_tokens = true)");
  const std::vector<data::HfTokenizer::SpannedEncoding> windows = t.encode_windows(a, b, e.max_length, e.stride);
  lua_createtable(L, static_cast<int>(windows.size()), 0);
  for (size_t i = 0; i < windows.size(); ++i) {
    push_spanned(L, windows[i], chars, e);
    lua_rawseti(L, -2, static_cast<int>(i + 1));
  }
  return 1;
}

// tok({text, ...}[, {pair, ...}][, {max_length, padding, padding_side}]): transformers'
// tokenizer(texts, pairs, padding=True, return_tensors="pt"): each text (with its pair) encoded
// as a single call would, the rows padded with the tokenizer's pad token to the longest (or to
// max_length), attention_mask 0 on the padding.
int push_batch(lua_State* L, TokenizerBox& box, const EncodeOptions& e, bool has_pair) {
  const data::HfTokenizer& t = *box.tok;
  const char* fn = "tokenizer({texts}, {pairs}, options)";
  if (e.offsets || e.special_mask || e.overflow)
    throw RecipeError(std::string(fn) + ": return_offsets_mapping, return_special_tokens_mask and return_overflowing_tokens are for one text at a time");
  const std::vector<std::string> a = word_list(L, 2), b = has_pair ? word_list(L, 3) : std::vector<std::string>{};
  if (has_pair && a.size() != b.size())
    throw RecipeError(std::string(fn) + ": " + std::to_string(a.size()) + " texts but " + std::to_string(b.size()) + " pairs");
  if (e.padding == "max_length" && e.max_length <= 0) throw RecipeError(std::string(fn) + ": padding = \"max_length\" needs max_length");
  std::vector<data::HfTokenizer::TypedEncoding> rows;
  int64_t width = e.padding == "max_length" ? e.max_length : 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const std::string_view pair = has_pair ? std::string_view(b[i]) : std::string_view();
    rows.push_back(t.encode_typed(a[i], has_pair ? &pair : nullptr, e.add_special, e.max_length));
    width = std::max<int64_t>(width, static_cast<int64_t>(rows.back().ids.size()));
  }
  const int64_t n = static_cast<int64_t>(rows.size());
  if (!box.pad_id) box.pad_id = special_token_id(t, "pad_token", {"[PAD]", "<pad>"});
  const int64_t pad = *box.pad_id;
  at::Tensor ids = at::full({n, width}, pad < 0 ? 0 : pad, at::kLong), types = at::zeros({n, width}, at::kLong), mask = at::zeros({n, width}, at::kLong);
  auto I = ids.accessor<int64_t, 2>(), T = types.accessor<int64_t, 2>(), M = mask.accessor<int64_t, 2>();
  for (int64_t r = 0; r < n; ++r) {
    const auto& row = rows[static_cast<size_t>(r)];
    const int64_t len = static_cast<int64_t>(row.ids.size()), first = e.padding_side == "left" ? width - len : 0;
    for (int64_t k = 0; k < len; ++k) I[r][first + k] = row.ids[static_cast<size_t>(k)], T[r][first + k] = row.type_ids[static_cast<size_t>(k)], M[r][first + k] = 1;
  }
  lua_createtable(L, 0, 3);
  set_encoding_fields(L, ids, types, mask);
  return 1;
}

int t_call(lua_State* L) {
  TokenizerBox& box = self_box(L);
  const data::HfTokenizer& t = *box.tok;
  // tok(words[, pair_words], {is_split_into_words = true}): a table of words per sequence.
  const bool tables = lua_istable(L, 2) && !is_options_table(L, 2);
  const bool has_pair = tables ? lua_istable(L, 3) && !is_options_table(L, 3) : lua_type(L, 3) == LUA_TSTRING;
  const EncodeOptions e = encode_options(L, has_pair ? 4 : 3, "tokenizer(text, text_pair, options)", /*words_allowed=*/true);
  if (tables && e.words && (e.offsets || e.special_mask || e.overflow))
    throw RecipeError("tokenizer(words, ...): return_offsets_mapping, return_special_tokens_mask and return_overflowing_tokens are for text, not is_split_into_words");
  if (tables && !e.words) return push_batch(L, box, e, has_pair);
  if (e.padding_given)
    throw RecipeError("tokenizer(text, ...): padding and padding_side are for a batch (a list of texts); a padding collator pads single examples");
  if (e.truncation == "only_second" && !has_pair) throw RecipeError("tokenizer(text, options): truncation = \"only_second\" needs a text pair");
  if (!e.overflow && (e.stride != 0 || e.truncation == "only_second"))
    throw RecipeError("tokenizer(text, text_pair, options): stride and truncation = \"only_second\" go with return_overflowing_tokens = true");
  data::HfTokenizer::TypedEncoding enc;
  if (tables) {
    const std::vector<std::string> a = word_list(L, 2), b = has_pair ? word_list(L, 3) : std::vector<std::string>{};
    enc = t.encode_words(a, has_pair ? &b : nullptr, e.add_special, e.max_length);
  } else {
    if (e.words) throw RecipeError("tokenizer(...): is_split_into_words needs a table of words");
    size_t n = 0, m = 0;
    const char* a = luaL_checklstring(L, 2, &n);
    const char* b = has_pair ? lua_tolstring(L, 3, &m) : nullptr;
    const std::string_view text(a, n), pair(b ? b : "", m);
    if (e.offsets || e.special_mask || e.overflow) {
      // Offsets count characters of the text they come from (computed once for all windows).
      const std::vector<int64_t> chars[2] = {e.offsets ? char_indices(text) : std::vector<int64_t>{},
                                             e.offsets && has_pair ? char_indices(pair) : std::vector<int64_t>{}};
      if (e.overflow) return push_windows(L, t, text, has_pair ? &pair : nullptr, chars, e);
      push_spanned(L, t.encode_spanned(text, has_pair ? &pair : nullptr, e.add_special, e.max_length), chars, e);
      return 1;
    }
    enc = t.encode_typed(text, has_pair ? &pair : nullptr, e.add_special, e.max_length);
  }
  lua_createtable(L, 0, 4);
  if (tables) {
    push_tensor(L, ids_tensor(enc.word_ids));
    lua_setfield(L, -2, "word_ids");
  }
  set_encoding_fields(L, ids_tensor(enc.ids), ids_tensor(enc.type_ids), at::ones({static_cast<int64_t>(enc.ids.size())}, at::kLong));
  return 1;
}

int t_decode(lua_State* L) {
  data::HfTokenizer& t = self(L);
  std::vector<int64_t> ids;
  if (at::Tensor* x = test_tensor(L, 2)) {
    const at::Tensor flat = x->detach().reshape({-1}).to(at::kCPU, at::kLong).contiguous();  // generated ids may be on the GPU
    ids.assign(flat.data_ptr<int64_t>(), flat.data_ptr<int64_t>() + flat.numel());
  } else if (lua_istable(L, 2)) {
    for (size_t i = 1; i <= lua_objlen(L, 2); ++i) {
      lua_rawgeti(L, 2, static_cast<int>(i));
      if (!lua_isnumber(L, -1)) throw RecipeError("tok:decode: ids must be numbers");
      ids.push_back(static_cast<int64_t>(lua_tonumber(L, -1)));
      lua_pop(L, 1);
    }
  } else {
    throw RecipeError(std::string("tok:decode: expected a tensor or a list of ids, got ") + luaL_typename(L, 2));
  }
  const std::string text = t.decode(ids, flag(L, 3, "skip_special_tokens", false));
  lua_pushlstring(L, text.data(), text.size());
  return 1;
}

int t_vocab_size(lua_State* L) {
  lua_pushnumber(L, static_cast<double>(self(L).vocab_size()));
  return 1;
}

int t_token_to_id(lua_State* L) {
  const int64_t id = self(L).token_to_id(luaL_checkstring(L, 2));
  if (id < 0) lua_pushnil(L);
  else lua_pushnumber(L, static_cast<double>(id));
  return 1;
}

int t_id_to_token(lua_State* L) {
  const std::string token = self(L).id_to_token(static_cast<int64_t>(luaL_checknumber(L, 2)));
  if (token.empty()) lua_pushnil(L);
  else lua_pushlstring(L, token.data(), token.size());
  return 1;
}

void push_id_or_nil(lua_State* L, int64_t id) {
  if (id < 0) lua_pushnil(L);
  else lua_pushnumber(L, static_cast<double>(id));
}

// transformers' tokenizer.pad_token_id / eos_token_id: the folder's tokenizer_config.json
// tokens, nil when it names none (TRL then pads with the end-of-text token).
int t_pad_token_id(lua_State* L) {
  push_id_or_nil(L, special_token_id(self(L), "pad_token", {}));
  return 1;
}

int t_eos_token_id(lua_State* L) {
  push_id_or_nil(L, config_eos_token_id(self(L)));
  return 1;
}

int t_gc(lua_State* L) {
  static_cast<TokenizerBox*>(lua_touserdata(L, 1))->~TokenizerBox();
  return 0;
}

int d_tokenizer(lua_State* L) {
  const std::string path = checked_path(luaL_checkstring(L, 1), "data.tokenizer");
  auto tok = data::HfTokenizer::load(path);
  void* mem = lua_newuserdata(L, sizeof(TokenizerBox));
  new (mem) TokenizerBox{std::move(tok), std::nullopt};
  if (luaL_newmetatable(L, kTokenizerMeta)) {
    lua_pushcfunction(L, t_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, guarded<t_call>);
    lua_setfield(L, -2, "__call");
    lua_newtable(L);
    set_functions(L, {{"encode", guarded<t_encode>}, {"decode", guarded<t_decode>}, {"vocab_size", guarded<t_vocab_size>},
                      {"token_to_id", guarded<t_token_to_id>}, {"id_to_token", guarded<t_id_to_token>},
                      {"pad_token_id", guarded<t_pad_token_id>}, {"eos_token_id", guarded<t_eos_token_id>}});
    lua_setfield(L, -2, "__index");
  }
  lua_setmetatable(L, -2);
  return 1;
}

}  // namespace

std::shared_ptr<data::HfTokenizer> tokenizer_at(lua_State* L, int idx) {
  auto* box = static_cast<TokenizerBox*>(luaL_testudata(L, idx, kTokenizerMeta));
  return box ? box->tok : nullptr;
}

void add_tokenizer_functions(lua_State* L) { set_functions(L, {{"tokenizer", guarded<d_tokenizer>}}); }

}  // namespace runner::lua
