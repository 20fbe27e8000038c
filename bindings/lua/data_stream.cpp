// data.stream{...}: the iterable (streaming) dataset type, runtime/data/stream/stream.h. A
// stream is its own userdata, not a Dataset: it has no length and no get(i), so map-style
// methods (#ds, ds:get, ds:map, ...) do not exist on it, and only datasets.train may be one.
#include "bindings/lua/data_parts.h"
#include "bindings/lua/data_stream.h"
#include "bindings/lua/lua_module.h"
#include "runtime/core/errors.h"

namespace runner::lua {

namespace {

struct StreamBox {
  data::StreamPtr stream;
};

int stream_gc(lua_State* L) {
  static_cast<StreamBox*>(lua_touserdata(L, 1))->~StreamBox();
  return 0;
}

int stream_tostring(lua_State* L) {
  lua_pushstring(L, check_stream(L, 1)->describe().c_str());
  return 1;
}

// stream:vocab_size(): 256 for "bytes", else the tokenizer's (for the model's embedding).
int stream_vocab_size(lua_State* L) {
  lua_pushinteger(L, static_cast<lua_Integer>(check_stream(L, 1)->vocab_size()));
  return 1;
}

// stream:shards(): the files it reads, expanded and sorted.
int stream_shards(lua_State* L) {
  const auto& shards = check_stream(L, 1)->shards();
  lua_createtable(L, static_cast<int>(shards.size()), 0);
  for (size_t i = 0; i < shards.size(); ++i) {
    lua_pushstring(L, shards[i].c_str());
    lua_rawseti(L, -2, static_cast<int>(i + 1));
  }
  return 1;
}

// data.stream{source = "data/*.parquet" | {files...}, format, column = "text", buffer_size = 1000,
// seed = 42, tokenizer = "bytes" | "tokenizer.json", block_size, eos_token_id, dtype (token_bin)}
int d_stream(lua_State* L) {
  if (!lua_istable(L, 1)) throw RecipeError("data.stream: expected a table of options, data.stream{source = ..., block_size = ...}");
  Options o(L, 1, "data.stream");
  data::StreamOptions s;
  lua_getfield(L, 1, "source");
  const bool single = lua_type(L, -1) == LUA_TSTRING;
  lua_pop(L, 1);
  if (single) s.sources = {o.string("source", "")};
  else s.sources = o.string_list("source", {});
  for (auto& path : s.sources) path = checked_path(path, "data.stream");
  s.format = o.string("format", "");
  s.column = o.string("column", "text");
  s.buffer_size = o.integer("buffer_size", 1000);
  s.seed = o.integer("seed", 42);
  s.tokenizer = o.string("tokenizer", "bytes");
  if (s.tokenizer != "bytes") s.tokenizer = checked_path(s.tokenizer, "data.stream");
  s.block_size = o.integer("block_size", 0);
  s.eos_token_id = o.integer("eos_token_id", -1);
  s.dtype = o.string("dtype", "");
  o.finish();
  push_stream(L, std::make_shared<const data::Stream>(std::move(s)));
  return 1;
}

}  // namespace

void push_stream(lua_State* L, data::StreamPtr stream) {
  new (lua_newuserdata(L, sizeof(StreamBox))) StreamBox{std::move(stream)};
  luaL_getmetatable(L, kStreamMeta);
  lua_setmetatable(L, -2);
}

data::StreamPtr test_stream(lua_State* L, int idx) {
  void* p = lua_touserdata(L, idx);
  if (!p || !lua_getmetatable(L, idx)) return nullptr;
  luaL_getmetatable(L, kStreamMeta);
  const bool same = lua_rawequal(L, -1, -2);
  lua_pop(L, 2);
  return same ? static_cast<StreamBox*>(p)->stream : nullptr;
}

data::StreamPtr check_stream(lua_State* L, int idx) {
  auto s = test_stream(L, idx);
  if (!s) throw RecipeError(std::string("expected a data.stream, got ") + luaL_typename(L, idx));
  return s;
}

void add_stream_functions(lua_State* L) {
  luaL_newmetatable(L, kStreamMeta);
  set_functions(L, {{"__gc", stream_gc}, {"__tostring", guarded<stream_tostring>}});
  lua_newtable(L);
  set_functions(L, {{"vocab_size", guarded<stream_vocab_size>}, {"shards", guarded<stream_shards>}});
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
  set_functions(L, {{"stream", guarded<d_stream>}});
}

}  // namespace runner::lua
