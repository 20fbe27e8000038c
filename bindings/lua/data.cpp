// require "runner.data": datasets a recipe declares. In-memory (data.table, data.tensors)
// and file sources (data.jsonl, data.csv) are here; the other sources, the transforms and
// the collators are in data_sources.cpp, data_transforms.cpp and data_collators.cpp.
// Dataset userdata: #ds, ds:get(i) (0-based, like PyTorch's ds[i]), ds:fields().
#include <optional>

#include "bindings/lua/data_binding.h"
#include "bindings/lua/data_stream.h"
#include "bindings/lua/data_parts.h"
#include "bindings/lua/lua_module.h"
#include "runtime/core/errors.h"
#include "runtime/data/sources/sources.h"

namespace runner::lua {

namespace {

struct DatasetBox {
  data::DatasetPtr ds;
};

int dataset_gc(lua_State* L) {
  static_cast<DatasetBox*>(lua_touserdata(L, 1))->~DatasetBox();
  return 0;
}
int dataset_len(lua_State* L) {
  lua_pushnumber(L, static_cast<double>(check_dataset(L, 1)->size()));
  return 1;
}
int dataset_get(lua_State* L) {
  const auto ds = check_dataset(L, 1);
  const int64_t i = check_int(L, 2, "dataset:get index");
  push_row(L, *ds, ds->get(i), i);
  return 1;
}
int dataset_fields(lua_State* L) {
  const auto ds = check_dataset(L, 1);
  auto names = ds->fields();  // the tensors, then the text fields (strings, structs)
  for (const auto& f : ds->text_fields()) names.push_back(f);
  lua_createtable(L, static_cast<int>(names.size()), 0);
  for (size_t i = 0; i < names.size(); ++i) {
    lua_pushstring(L, names[i].c_str());
    lua_rawseti(L, -2, static_cast<int>(i + 1));
  }
  return 1;
}
int dataset_tostring(lua_State* L) {
  const auto ds = check_dataset(L, 1);
  std::string fields;
  for (const auto& f : ds->fields()) fields += (fields.empty() ? "" : ", ") + f;
  for (const auto& f : ds->text_fields()) fields += (fields.empty() ? "" : ", ") + f + " (text)";
  lua_pushstring(L, ("Dataset(" + ds->describe() + ", " + std::to_string(ds->size()) + " examples: " + fields + ")").c_str());
  return 1;
}

int ret(lua_State* L, data::DatasetPtr ds) {
  push_dataset(L, std::move(ds));
  return 1;
}

// data.tensors{ x = X, labels = Y }: rows of tensors sharing dim 0.
int d_tensors(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  return ret(L, std::make_shared<data::TensorDataset>(to_tensor_map(L, 1, "data.tensors"), "data.tensors"));
}

// data.table{ {x = {0.5}, labels = 3.1}, ... }: one table per example. Each field becomes a
// tensor (nested lists allowed); integral values → int64, others float32, decided over
// the whole field; {dtypes = {x = "float32"}} overrides.
int d_table(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  Options o(L, 2, "data.table");
  std::map<std::string, at::ScalarType> dtypes;
  if (o.has("dtypes")) {
    lua_getfield(L, 2, "dtypes");
    lua_pushnil(L);
    while (lua_next(L, -2)) {
      dtypes[lua_tostring(L, -2)] = parse_dtype(luaL_checkstring(L, -1));
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  o.finish();
  const size_t n = lua_objlen(L, 1);
  if (n == 0) throw RecipeError("data.table: no examples");
  std::vector<data::Example> examples;
  std::map<std::string, bool> any_float;  // per field: some value was not an integer
  for (size_t i = 1; i <= n; ++i) {
    lua_rawgeti(L, 1, static_cast<int>(i));
    if (!lua_istable(L, -1)) {
      lua_pop(L, 1);
      throw RecipeError("data.table: example " + std::to_string(i) + " is not a table");
    }
    data::Example ex;
    lua_pushnil(L);
    while (lua_next(L, -2)) {
      if (lua_type(L, -2) != LUA_TSTRING) {
        lua_pop(L, 3);
        throw RecipeError("data.table: example " + std::to_string(i) + " has an unnamed field");
      }
      const std::string key = lua_tostring(L, -2);
      auto it = dtypes.find(key);
      at::Tensor t = tensor_from_lua(L, -1, it == dtypes.end() ? std::nullopt : std::optional<at::ScalarType>(it->second));
      if (t.is_floating_point()) any_float[key] = true;
      ex[key] = t;
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
    examples.push_back(std::move(ex));
  }
  // A field with 3 in one example and 0.5 in another is a float field everywhere.
  for (auto& ex : examples)
    for (auto& [key, t] : ex)
      if (any_float[key] && !t.is_floating_point() && !dtypes.count(key)) t = t.to(at::kFloat);
  bool uniform = true;
  for (const auto& ex : examples) {
    if (ex.size() != examples.front().size()) uniform = false;
    for (const auto& [key, t] : ex) {
      auto f = examples.front().find(key);
      if (f == examples.front().end() || !f->second.sizes().equals(t.sizes())) uniform = false;
    }
  }
  if (!uniform) return ret(L, std::make_shared<data::ExampleListDataset>(std::move(examples), "data.table"));
  models::TensorMap columns;
  for (const auto& [key, t0] : examples.front()) {
    std::vector<at::Tensor> parts;
    for (const auto& ex : examples) parts.push_back(ex.at(key));
    columns[key] = at::stack(parts);
  }
  return ret(L, std::make_shared<data::TensorDataset>(std::move(columns), "data.table"));
}

// The path only: options (a delimiter, columns) would be read by nobody.
void only_a_path(lua_State* L, const char* fn, const char* what) {
  if (lua_gettop(L) > 1) throw RecipeError(std::string(fn) + " takes one argument, the path (" + what + "); it has no options");
}

int d_jsonl(lua_State* L) {
  only_a_path(L, "data.jsonl", "one JSON object per line");
  return ret(L, data::load_jsonl(checked_path(luaL_checkstring(L, 1), "data.jsonl")));
}
int d_csv(lua_State* L) {
  only_a_path(L, "data.csv", "comma-separated, a header row");
  return ret(L, data::load_csv(checked_path(luaL_checkstring(L, 1), "data.csv")));
}

}  // namespace

void push_dataset(lua_State* L, data::DatasetPtr ds) {
  void* mem = lua_newuserdata(L, sizeof(DatasetBox));
  new (mem) DatasetBox{std::move(ds)};
  luaL_getmetatable(L, kDatasetMeta);
  lua_setmetatable(L, -2);
}

data::DatasetPtr test_dataset(lua_State* L, int idx) {
  void* p = lua_touserdata(L, idx);
  if (!p || !lua_getmetatable(L, idx)) return nullptr;
  luaL_getmetatable(L, kDatasetMeta);
  const bool same = lua_rawequal(L, -1, -2);
  lua_pop(L, 2);
  return same ? static_cast<DatasetBox*>(p)->ds : nullptr;
}

data::DatasetPtr check_dataset(lua_State* L, int idx) {
  auto ds = test_dataset(L, idx);
  if (!ds) throw RecipeError(std::string("expected a dataset, got ") + luaL_typename(L, idx));
  return ds;
}

void register_dataset_type(lua_State* L) {
  luaL_newmetatable(L, kDatasetMeta);
  set_functions(L, {{"__gc", dataset_gc}, {"__len", guarded<dataset_len>}, {"__tostring", guarded<dataset_tostring>}});
  lua_newtable(L);
  set_functions(L, {{"get", guarded<dataset_get>}, {"size", guarded<dataset_len>}, {"fields", guarded<dataset_fields>}});
  add_dataset_methods(L);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
  register_collator_type(L);
}

void push_data_module(lua_State* L) {
  lua_newtable(L);
  set_functions(L, {{"table", guarded<d_table>}, {"tensors", guarded<d_tensors>}, {"jsonl", guarded<d_jsonl>}, {"csv", guarded<d_csv>}});
  add_source_functions(L);
  add_arrow_source_functions(L);
  add_collator_functions(L);
  add_tokenizer_functions(L);
  add_qa_functions(L);
  add_preference_functions(L);
  add_stream_functions(L);
}

}  // namespace runner::lua
