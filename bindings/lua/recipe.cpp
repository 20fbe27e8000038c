#include "bindings/lua/recipe.h"

#include <fstream>

#include "bindings/lua/data_binding.h"
#include "bindings/lua/data_stream.h"
#include "bindings/lua/lua_callbacks.h"
#include "bindings/lua/lua_hooks.h"
#include "bindings/lua/lua_module.h"
#include "bindings/lua/search_hooks.h"
#include "runtime/core/did_you_mean.h"
#include "runtime/core/errors.h"

namespace runner::lua {

const std::vector<std::string>& recipe_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k{"args", "datasets", "model", "callbacks", "input_name"};
    for (const auto& h : hook_names()) k.push_back(h);
    for (const auto& h : search_keys()) k.push_back(h);
    return k;
  }();
  return keys;
}

std::string locate_key(const std::string& path, const std::string& key) {
  // A plain search, not a regex: the key comes from the recipe and may hold any character.
  auto sets_key = [&key](const std::string& code) {
    for (size_t at = code.find(key); at != std::string::npos; at = code.find(key, at + 1)) {
      const bool starts = at == 0 || std::isspace(static_cast<unsigned char>(code[at - 1])) || code[at - 1] == ',' || code[at - 1] == '{';
      size_t next = at + key.size();
      while (next < code.size() && std::isspace(static_cast<unsigned char>(code[next]))) ++next;
      if (starts && next < code.size() && code[next] == '=' && (next + 1 >= code.size() || code[next + 1] != '=')) return true;
    }
    return false;
  };
  std::ifstream in(path);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const auto comment = line.find("--");
    if (sets_key(comment == std::string::npos ? line : line.substr(0, comment))) return path + ":" + std::to_string(n);
  }
  return path;
}

namespace {

// The recipe table is at stack index `t` throughout.
void check_keys(lua_State* L, int t, const std::string& path) {
  lua_pushnil(L);
  while (lua_next(L, t)) {
    lua_pop(L, 1);
    if (lua_type(L, -1) != LUA_TSTRING) {
      lua_pop(L, 1);
      throw RecipeError("the recipe table must have named fields only", path);
    }
    const std::string key = lua_tostring(L, -1);
    const auto& keys = recipe_keys();
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
      lua_pop(L, 1);
      throw RecipeError("unknown recipe field '" + key + "'" + did_you_mean(key, keys), locate_key(path, key));
    }
  }
}

// A dataset of text fields only (a JSONL or CSV of sentences, not yet tokenized) would give
// empty batches: the Trainer only feeds tensors to the model.
void require_tensor_fields(const data::DatasetPtr& ds, const std::string& what, const std::string& where) {
  if (!ds || ds->size() == 0 || !ds->fields().empty()) return;
  std::string text;
  for (const auto& f : ds->text_fields()) text += (text.empty() ? "" : ", ") + f;
  throw RecipeError(what + " has no tensor fields" + (text.empty() ? "" : ", only text fields (" + text + ")") +
                        ": turn them into tensors with ds:map, e.g. ds:map(function(ex) return tok(ex.text) end)",
                    where);
}

data::DatasetPtr dataset_field(lua_State* L, int datasets, const char* name, const std::string& path) {
  lua_getfield(L, datasets, name);
  data::DatasetPtr ds;
  if (!lua_isnil(L, -1)) {
    ds = test_dataset(L, -1);
    if (!ds) {
      const std::string got = luaL_typename(L, -1);
      lua_pop(L, 1);
      throw RecipeError(std::string("datasets.") + name + " must be a dataset (data.table, data.jsonl, ...), got " + got,
                        locate_key(path, name));
    }
  }
  lua_pop(L, 1);
  require_tensor_fields(ds, std::string("datasets.") + name, locate_key(path, name));
  return ds;
}

}  // namespace

Recipe load_recipe(LuaState& lua, const std::string& path) {
  lua_State* L = lua.get();
  const int base = lua_gettop(L);
  lua.run_recipe(path);
  struct Restore {
    lua_State* L;
    int top;
    ~Restore() { lua_settop(L, top); }
  } restore{L, base};
  const int t = lua_gettop(L);
  if (!lua_istable(L, t)) throw RecipeError(std::string("the recipe must return a table, got ") + luaL_typename(L, t), path);
  check_keys(L, t, path);

  Recipe r;
  r.path = path;

  lua_getfield(L, t, "args");
  if (!lua_isnil(L, -1)) {
    if (!lua_istable(L, -1)) throw RecipeError("args must be a table", locate_key(path, "args"));
    r.recipe_args = to_json(L, -1, "args");
    if (!r.recipe_args.is_object()) throw RecipeError("args must be a table of names to values", locate_key(path, "args"));
    for (auto it = r.recipe_args.begin(); it != r.recipe_args.end(); ++it) {
      try {
        r.args.set(it.key(), it.value());
      } catch (const ArgumentError& e) {
        throw e.located(locate_key(path, it.key()));
      }
    }
  }
  lua_pop(L, 1);

  lua_getfield(L, t, "datasets");
  if (!lua_isnil(L, -1)) {
    if (!lua_istable(L, -1)) throw RecipeError("datasets must be a table {train = ..., eval = ..., test = ...}", locate_key(path, "datasets"));
    const int ds = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, ds)) {
      lua_pop(L, 1);
      const std::string key = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "?";
      if (key != "train" && key != "eval" && key != "test") {
        lua_pop(L, 1);
        throw RecipeError("datasets." + key + ": expected train, eval or test" + did_you_mean(key, {"train", "eval", "test"}),
                          locate_key(path, key));
      }
    }
    lua_getfield(L, ds, "train");
    r.datasets.train_stream = test_stream(L, -1);  // an iterable dataset (data.stream) trains only
    lua_pop(L, 1);
    if (!r.datasets.train_stream) r.datasets.train = dataset_field(L, ds, "train", path);
    for (const char* split : {"eval", "test"}) {
      lua_getfield(L, ds, split);
      const bool is_stream = test_stream(L, -1) != nullptr;
      lua_pop(L, 1);
      if (is_stream)
        throw RecipeError(std::string("datasets.") + split + ": a data.stream can only be datasets.train (evaluation needs a dataset with a length)",
                          locate_key(path, split));
    }
    r.datasets.test = dataset_field(L, ds, "test", path);
    lua_getfield(L, ds, "eval");
    const bool named = lua_istable(L, -1);
    if (named) {
      // datasets.eval = { a = ..., b = ... }: each is evaluated with the prefix eval_<name>
      const int evals = lua_gettop(L);
      lua_pushnil(L);
      while (lua_next(L, evals)) {
        const std::string name = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "";
        data::DatasetPtr d = test_dataset(L, -1);
        lua_pop(L, 1);
        if (name.empty() || !d) throw RecipeError("datasets.eval must be a dataset or a table of named datasets", locate_key(path, "eval"));
        require_tensor_fields(d, "datasets.eval." + name, locate_key(path, "eval"));
        r.datasets.named_evals[name] = d;
      }
    }
    lua_pop(L, 1);
    if (!named) r.datasets.eval = dataset_field(L, ds, "eval", path);
  }
  lua_pop(L, 1);

  lua_getfield(L, t, "model");
  if (!lua_isnil(L, -1)) {
    r.model = test_module(L, -1);
    if (!r.model) throw RecipeError(std::string("model must be a module (nn.*, models.*), got ") + luaL_typename(L, -1), locate_key(path, "model"));
  }
  lua_pop(L, 1);

  lua_getfield(L, t, "input_name");
  if (!lua_isnil(L, -1)) {
    if (lua_type(L, -1) != LUA_TSTRING) throw RecipeError("input_name must be a string (a batch field name)", locate_key(path, "input_name"));
    r.input_name = lua_tostring(L, -1);
  }
  lua_pop(L, 1);

  auto hooks = std::make_shared<LuaHooks>(L, t, path);
  if (r.model) hooks->attach_model(*r.model);
  r.collator = hooks->data_collator();
  lua_getfield(L, t, "data_collator");
  if (auto spec = test_collator(L, -1)) {
    r.collator = spec->collate;
    r.collator_thread_safe = spec->thread_safe;
  }
  lua_pop(L, 1);
  r.hooks = hooks;
  r.search = std::make_shared<LuaSearchHooks>(L, t, path);

  lua_getfield(L, t, "callbacks");
  if (!lua_isnil(L, -1)) {
    if (!lua_istable(L, -1)) throw RecipeError("callbacks must be a list of callback tables", locate_key(path, "callbacks"));
    const int cbs = lua_gettop(L);
    const size_t n = lua_objlen(L, cbs);
    // A callback table given directly (callbacks = {on_log = f}) has no list entries: its
    // events would never fire.
    lua_pushnil(L);
    while (lua_next(L, cbs)) {
      lua_pop(L, 1);
      const bool listed = lua_type(L, -1) == LUA_TNUMBER && lua_tonumber(L, -1) >= 1 && lua_tonumber(L, -1) <= static_cast<double>(n) &&
                          lua_tonumber(L, -1) == static_cast<double>(static_cast<int64_t>(lua_tonumber(L, -1)));
      if (!listed) {
        const std::string key = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : luaL_typename(L, -1);
        throw RecipeError("callbacks must be a list of callback tables, got a key '" + key + "'" +
                              (key.rfind("on_", 0) == 0 ? " (wrap the table: callbacks = {{" + key + " = ...}})" : ""),
                          locate_key(path, key));
      }
    }
    for (size_t i = 1; i <= n; ++i) {
      lua_rawgeti(L, cbs, static_cast<int>(i));
      if (auto builtin = test_callback(L, -1)) {
        r.callbacks.push_back(builtin);
        lua_pop(L, 1);
        continue;
      }
      if (!lua_istable(L, -1))
        throw RecipeError("callbacks[" + std::to_string(i) + "] must be a table of on_* functions or a runner.callbacks object",
                          locate_key(path, "callbacks"));
      // Event names are checked up front: a misspelt on_step_ned would otherwise never fire.
      const int cb = lua_gettop(L);
      lua_pushnil(L);
      while (lua_next(L, cb)) {
        lua_pop(L, 1);
        const std::string key = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
        const auto& keys = callback_keys();
        if (std::find(keys.begin(), keys.end(), key) == keys.end())
          throw RecipeError("callbacks[" + std::to_string(i) + "]: unknown event '" + key + "'" + did_you_mean(key, keys),
                            locate_key(path, key));
      }
      lua_getfield(L, cb, "name");
      const std::string name = lua_isstring(L, -1) ? lua_tostring(L, -1) : "LuaCallback";
      lua_pop(L, 1);
      r.callbacks.push_back(std::make_shared<LuaCallback>(L, cb, name));
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 1);

  const auto undeclared = lua.undeclared_options();
  if (!undeclared.empty()) {
    std::vector<std::string> known = lua.declared_options();
    for (const auto& f : arg_fields()) {
      known.emplace_back(f.name);
      if (*f.aliases) known.emplace_back(f.aliases);
    }
    const std::string& name = undeclared.front();
    std::string hint = did_you_mean(name, known);
    if (hint.empty()) hint = " (runner args lists the training arguments; this recipe's own options are what its recipe.options{} declares)";
    throw ArgumentError("--" + name + ": unknown argument" + hint, "command line");
  }
  return r;
}

}  // namespace runner::lua
