// data.parquet, data.arrow and data.hf_dataset (runtime/data/sources/arrow_table.h), and how
// their text fields (strings, structs) reach Lua: as strings and tables beside an example's
// tensors, in ds:get and in map/filter functions.
//   data.parquet{path = file | folder | glob, columns = {...}, dtypes = {name = "float32", ...}}
//   data.arrow{path = ..., columns, dtypes}           (or data.parquet(path [, {...}]))
//   data.hf_dataset(folder) / data.hf_dataset{path = folder, split = "train", columns, dtypes}:
//   a Dataset folder gives a dataset, a DatasetDict folder a table of them by split name
//   (load_from_disk's DatasetDict), or the one split asked for.
#include "bindings/lua/data_binding.h"
#include "bindings/lua/data_parts.h"
#include "bindings/lua/lua_module.h"
#include "runtime/core/errors.h"
#include "runtime/data/sources/arrow_table.h"

namespace runner::lua {

namespace {

void push_value(lua_State* L, const nlohmann::ordered_json& j) {
  switch (j.type()) {
    case nlohmann::ordered_json::value_t::boolean: lua_pushboolean(L, j.get<bool>()); break;
    case nlohmann::ordered_json::value_t::number_integer:
    case nlohmann::ordered_json::value_t::number_unsigned:
    case nlohmann::ordered_json::value_t::number_float: lua_pushnumber(L, j.get<double>()); break;
    case nlohmann::ordered_json::value_t::string: {
      const auto& s = j.get_ref<const std::string&>();
      lua_pushlstring(L, s.data(), s.size());
      break;
    }
    case nlohmann::ordered_json::value_t::array: {
      lua_createtable(L, static_cast<int>(j.size()), 0);
      int i = 1;
      for (const auto& v : j) {
        push_value(L, v);
        lua_rawseti(L, -2, i++);
      }
      break;
    }
    case nlohmann::ordered_json::value_t::object:
      lua_createtable(L, 0, static_cast<int>(j.size()));
      for (auto it = j.begin(); it != j.end(); ++it) {
        push_value(L, it.value());
        lua_setfield(L, -2, it.key().c_str());
      }
      break;
    default: lua_pushnil(L);  // null: the field is absent, as None is in HF
  }
}

// Options at `opts`, with the path either there (path =) or as a string before it.
std::string path_of(lua_State* L, Options& o, const char* fn) {
  if (lua_type(L, 1) == LUA_TSTRING) {
    if (o.has("path")) throw RecipeError(std::string(fn) + ": path given twice");
    return checked_path(lua_tostring(L, 1), fn);
  }
  if (!o.has("path")) throw RecipeError(std::string(fn) + ": needs path = \"...\"");
  return checked_path(o.string("path", ""), fn);
}

data::ArrowOptions arrow_options(lua_State* L, int opts, Options& o, const char* fn) {
  data::ArrowOptions a;
  a.columns = o.string_list("columns", {});
  if (o.has("dtypes")) {
    lua_getfield(L, opts, "dtypes");
    if (!lua_istable(L, -1)) throw RecipeError(std::string(fn) + ": dtypes must be a table {column = \"float32\", ...}");
    lua_pushnil(L);
    while (lua_next(L, -2)) {
      if (lua_type(L, -2) != LUA_TSTRING || lua_type(L, -1) != LUA_TSTRING)
        throw RecipeError(std::string(fn) + ": dtypes must map column names to dtype names");
      a.dtypes[lua_tostring(L, -2)] = parse_dtype(lua_tostring(L, -1));
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  return a;
}

template <data::DatasetPtr (*Load)(const std::string&, const data::ArrowOptions&)>
int d_load(lua_State* L, const char* fn) {
  const int opts = lua_type(L, 1) == LUA_TSTRING ? 2 : 1;
  Options o(L, opts, fn);
  const std::string path = path_of(L, o, fn);
  const data::ArrowOptions a = arrow_options(L, opts, o, fn);
  o.finish();
  push_dataset(L, Load(path, a));
  return 1;
}

int d_parquet(lua_State* L) { return d_load<data::load_parquet>(L, "data.parquet"); }
int d_arrow(lua_State* L) { return d_load<data::load_arrow>(L, "data.arrow"); }

int d_hf_dataset(lua_State* L) {
  const int opts = lua_type(L, 1) == LUA_TSTRING ? 2 : 1;
  Options o(L, opts, "data.hf_dataset");
  const std::string path = path_of(L, o, "data.hf_dataset");
  const std::string split = o.string("split", "");
  const data::ArrowOptions a = arrow_options(L, opts, o, "data.hf_dataset");
  o.finish();
  auto splits = data::load_hf_dataset(path, split, a);
  if (!split.empty() || (splits.size() == 1 && splits.front().first.empty())) {
    push_dataset(L, splits.front().second);
    return 1;
  }
  lua_createtable(L, 0, static_cast<int>(splits.size()));
  for (auto& [name, ds] : splits) {
    push_dataset(L, std::move(ds));
    lua_setfield(L, -2, name.c_str());
  }
  return 1;
}

}  // namespace

void push_row(lua_State* L, const data::Dataset& ds, const data::Example& e, int64_t index) {
  push_tensor_map(L, e);
  if (ds.text_fields().empty()) return;
  const nlohmann::ordered_json text = ds.text(index);
  for (auto it = text.begin(); it != text.end(); ++it) {
    push_value(L, it.value());
    lua_setfield(L, -2, it.key().c_str());
  }
}

void add_arrow_source_functions(lua_State* L) {
  set_functions(L, {{"parquet", guarded<d_parquet>}, {"arrow", guarded<d_arrow>}, {"hf_dataset", guarded<d_hf_dataset>}});
}

}  // namespace runner::lua
