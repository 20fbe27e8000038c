// data.pad_collator{...} and data.lm_collator{...}: collator userdata a recipe gives as
// `data_collator`. Calling one from Lua, collator(examples), returns the batch table, so a
// Lua data_collator function can wrap it.
#include "bindings/lua/data_binding.h"
#include "bindings/lua/data_parts.h"
#include "bindings/lua/lua_module.h"
#include "runtime/core/errors.h"

namespace runner::lua {

namespace {

struct CollatorBox {
  CollatorSpec spec;
};

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
  const data::Batch batch = box->spec.collate(examples);
  push_tensor_map(L, batch);
  return 1;
}

// The options both collators take.
data::PadOptions pad_options(lua_State* L, const char* fn) {
  Options o(L, 1, fn);
  data::PadOptions p;
  p.pad_token_id = o.integer("pad_token_id", 0);
  p.label_pad_id = o.integer("label_pad_id", -100);
  p.attention_mask = o.boolean("attention_mask", true);
  const std::string side = o.string("padding_side", "right");
  if (side != "right" && side != "left") throw RecipeError(std::string(fn) + ": padding_side must be \"right\" or \"left\", got \"" + side + "\"");
  p.pad_left = side == "left";
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

}  // namespace

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
  set_functions(L, {{"pad_collator", guarded<d_pad_collator>}, {"lm_collator", guarded<d_lm_collator>}});
}

}  // namespace runner::lua
