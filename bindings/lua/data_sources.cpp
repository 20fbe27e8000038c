// data.synthetic.regression/classification, data.idx, data.text, data.token_bin and
// data.lua: the dataset sources beyond tables and JSONL/CSV files.
#include <cmath>

#include "bindings/lua/data_binding.h"
#include "bindings/lua/data_parts.h"
#include "bindings/lua/lua_module.h"
#include "runtime/core/errors.h"
#include "runtime/data/sources/sources.h"

namespace runner::lua {

namespace {

int ret(lua_State* L, data::DatasetPtr ds) {
  push_dataset(L, std::move(ds));
  return 1;
}

// data.synthetic.regression{n =, features = 1, noise = 0.1, seed = 0}
int d_regression(lua_State* L) {
  Options o(L, 1, "data.synthetic.regression");
  data::SyntheticOptions s;
  s.n = o.integer("n", 0);
  s.features = o.integer("features", 1);
  s.noise = o.number("noise", 0.1);
  s.seed = o.integer("seed", 0);
  o.finish();
  return ret(L, data::synthetic_regression(s));
}

// data.synthetic.classification{n =, features = 2, classes = 2, seed = 0, separation = 3}
int d_classification(lua_State* L) {
  Options o(L, 1, "data.synthetic.classification");
  data::ClassificationOptions c;
  c.n = o.integer("n", 0);
  c.features = o.integer("features", 2);
  c.classes = o.integer("classes", 2);
  c.seed = o.integer("seed", 0);
  c.separation = o.number("separation", 3.0);
  o.finish();
  return ret(L, data::synthetic_classification(c));
}

// data.idx{images =, labels =, normalize = "unit", mean =, std =, flatten = false}
int d_idx(lua_State* L) {
  Options o(L, 1, "data.idx");
  if (!o.has("images")) throw RecipeError("data.idx: needs images = \"path/to/...-images-idx3-ubyte[.gz]\"");
  const std::string images = checked_path(o.string("images", ""), "data.idx");
  const std::string labels = o.has("labels") ? checked_path(o.string("labels", ""), "data.idx") : std::string();
  data::IdxOptions idx;
  idx.normalize = o.string("normalize", "unit");
  if (o.has("mean")) idx.mean = o.number("mean", 0);
  if (o.has("std")) idx.std = o.number("std", 1);
  idx.flatten = o.boolean("flatten", false);
  o.finish();
  return ret(L, data::load_idx(images, labels, idx));
}

// The window options shared by data.text and data.token_bin.
data::WindowOptions window_options(Options& o, const char* fn) {
  data::WindowOptions w;
  if (!o.has("block_size")) throw RecipeError(std::string(fn) + ": needs block_size = <tokens per example>");
  w.block_size = o.integer("block_size", 0);
  w.stride = o.integer("stride", 0);
  w.random_windows = o.boolean("random_windows", false);
  w.num_samples = o.integer("num_samples", 0);
  w.seed = o.integer("seed", 0);
  return w;
}

// Options at `opts`, with the path either there (path =) or as a string before it.
std::string path_option(lua_State* L, Options& o, const char* fn) {
  if (lua_type(L, 1) == LUA_TSTRING) {
    if (o.has("path")) throw RecipeError(std::string(fn) + ": path given twice");
    return checked_path(lua_tostring(L, 1), fn);
  }
  if (!o.has("path")) throw RecipeError(std::string(fn) + ": needs path = \"...\"");
  return checked_path(o.string("path", ""), fn);
}

// data.text{path, tokenizer = "chars", block_size, stride, range = {0, 0.9}, random_windows,
// num_samples, seed}, or data.text(path, {...})
int d_text(lua_State* L) {
  const int opts = lua_type(L, 1) == LUA_TSTRING ? 2 : 1;
  Options o(L, opts, "data.text");
  data::TextOptions t;
  t.path = path_option(L, o, "data.text");
  t.tokenizer = o.string("tokenizer", "chars");
  if (t.tokenizer.size() > 5 && t.tokenizer.compare(t.tokenizer.size() - 5, 5, ".json") == 0) t.tokenizer = checked_path(t.tokenizer, "data.text");
  t.windows = window_options(o, "data.text");
  if (o.has("range")) {
    lua_getfield(L, opts, "range");
    const bool pair = lua_istable(L, -1) && lua_objlen(L, -1) == 2;
    double r[2] = {0, 1};
    for (int k = 0; pair && k < 2; ++k) {
      lua_rawgeti(L, -1, k + 1);
      r[k] = lua_isnumber(L, -1) ? lua_tonumber(L, -1) : NAN;
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
    if (!pair || std::isnan(r[0]) || std::isnan(r[1]))
      throw RecipeError("data.text: range must be a pair of fractions {begin, end}, like {0, 0.9}");
    t.range_begin = r[0], t.range_end = r[1];
  }
  o.finish();
  return ret(L, data::load_text(t));
}

// data.token_bin{path, dtype, block_size, stride, random_windows, num_samples, seed}
int d_token_bin(lua_State* L) {
  const int opts = lua_type(L, 1) == LUA_TSTRING ? 2 : 1;
  Options o(L, opts, "data.token_bin");
  data::TokenBinOptions t;
  t.path = path_option(L, o, "data.token_bin");
  t.dtype = o.string("dtype", "");  // "": the header's (runner prepare-data), else uint16
  t.windows = window_options(o, "data.token_bin");
  o.finish();
  return ret(L, data::load_token_bin(t));
}

// Examples produced by a Lua function of the index.
class LuaDataset : public data::Dataset {
 public:
  LuaDataset(LuaDataFunction fn, int64_t n) : fn_(std::move(fn)), n_(n), origin_("data.lua(" + fn_.where() + ")") {
    if (n_ > 0)
      for (const auto& [name, t] : get(0)) fields_.push_back(name);
    fn_.learn_dtypes(*this);
  }
  int64_t size() const override { return n_; }
  data::Example get(int64_t index) const override {
    if (index < 0 || index >= n_)
      throw DataError("index " + std::to_string(index) + " out of range for " + std::to_string(n_) + " examples", origin_);
    return fn_.call([index](lua_State* L) { lua_pushnumber(L, static_cast<double>(index)); }, 1);
  }
  std::vector<std::string> fields() const override { return fields_; }
  bool thread_safe() const override { return false; }
  std::string describe() const override { return origin_; }

 private:
  LuaDataFunction fn_;
  int64_t n_;
  std::string origin_;
  std::vector<std::string> fields_;
};

// data.lua(function(i) return {x = ..., labels = ...} end, n): i is 0-based.
int d_lua(lua_State* L) {
  if (!lua_isfunction(L, 1)) throw RecipeError(std::string("data.lua: expected a function of the index, got ") + luaL_typename(L, 1));
  const int64_t n = check_int(L, 2, "data.lua size");
  if (n < 0) throw RecipeError("data.lua: the size must be >= 0");
  return ret(L, std::make_shared<LuaDataset>(LuaDataFunction(L, 1, "data.lua"), n));
}

}  // namespace

void add_source_functions(lua_State* L) {
  set_functions(L, {{"idx", guarded<d_idx>}, {"text", guarded<d_text>}, {"token_bin", guarded<d_token_bin>}, {"lua", guarded<d_lua>},
                    {"sft", guarded<d_sft>}});
  lua_newtable(L);
  set_functions(L, {{"regression", guarded<d_regression>}, {"classification", guarded<d_classification>}});
  lua_setfield(L, -2, "synthetic");
}

}  // namespace runner::lua
