// Dataset methods beyond get/size/fields: ds:map, ds:filter, ds:shuffle, ds:select,
// ds:train_test_split (HF datasets semantics, 0-based indices), and the source helpers
// ds:vocab_size, ds:decode, ds:encode (data.text) and ds:coef (data.synthetic.regression),
// which also work on views of those sources.
#include <algorithm>

#include "bindings/lua/data_binding.h"
#include "bindings/lua/data_parts.h"
#include "bindings/lua/lua_module.h"
#include "runtime/core/errors.h"
#include "runtime/data/dtype_name.h"
#include "runtime/data/sources/sources.h"
#include "runtime/data/transforms.h"

namespace runner::lua {

LuaDataFunction::LuaDataFunction(lua_State* L, int idx, std::string what)
    : ref_(std::make_shared<LuaRef>(L, idx)), what_(std::move(what)), defined_(defined_at(L, idx)) {}

lua_State* LuaDataFunction::state() const {
  lua_State* L = ref_->state();
  if (!lua_alive(L)) throw DataError("the recipe's Lua state is closed; its " + what_ + " function cannot run", defined_);
  return L;
}

void LuaDataFunction::call_raw(int nargs) const {
  try {
    pcall_or_throw(ref_->state(), nargs, 1);
  } catch (const LuaError& e) {
    throw DataError(e.what());  // already starts with the failing line of the recipe
  }
}

// Whole numbers in a float field are floats (Lua cannot write 2.0 apart from 2); while the
// first examples are read, a fractional value makes an int64 field float32; after that, any
// other change of dtype is an error saying how to fix it (as Arrow refuses a float in a column
// datasets inferred as int64).
at::Tensor LuaDataFunction::with_field_dtype(const std::string& key, const at::Tensor& v) const {
  const auto [it, first] = dtypes_->of.emplace(key, v.scalar_type());
  if (first || it->second == v.scalar_type()) return v;
  const bool was_int = at::isIntegralType(it->second, /*includeBool=*/false);
  const bool is_int = at::isIntegralType(v.scalar_type(), /*includeBool=*/false);
  if (at::isFloatingType(it->second) && is_int) return v.to(it->second);
  if (!dtypes_->settled && was_int && at::isFloatingType(v.scalar_type())) {
    it->second = v.scalar_type();
    return v;
  }
  throw DataError(what_ + " function: field '" + key + "' is " + dtype_name(v.scalar_type()) + " here but " +
                      dtype_name(it->second) + " in the first " + std::to_string(kDtypeExamples) +
                      " examples (Lua numbers that are all whole make int64): give the field its dtype, e.g. "
                      "torch.tensor(values, {dtype = torch.float32})",
                  defined_);
}

void LuaDataFunction::learn_dtypes(const data::Dataset& ds) const {
  for (int64_t i = 0; i < std::min<int64_t>(ds.size(), kDtypeExamples); ++i) ds.get(i);
  dtypes_->settled = true;
}

data::Example LuaDataFunction::result_to_example(lua_State* L) const {
  if (!lua_istable(L, -1) || test_tensor(L, -1))
    throw DataError(what_ + " function must return a table of fields, got " + std::string(luaL_typename(L, -1)), defined_);
  const int t = lua_gettop(L);
  data::Example ex;
  lua_pushnil(L);
  while (lua_next(L, t)) {
    if (lua_type(L, -2) != LUA_TSTRING) throw DataError(what_ + " function returned a table with unnamed fields", defined_);
    const std::string key = lua_tostring(L, -2);
    if (lua_type(L, -1) == LUA_TSTRING)
      throw DataError(what_ + " function: field '" + key + "' is a string; examples hold tensors (numbers)", defined_);
    at::Tensor v;
    try {
      v = tensor_from_lua(L, -1, std::nullopt);
    } catch (const Error& e) {
      throw DataError(what_ + " function: field '" + key + "': " + e.message(), defined_);
    }
    ex[key] = with_field_dtype(key, v);
    lua_pop(L, 1);
  }
  return ex;
}

namespace {

// The first dataset of type T found by following views down from ds.
template <class T>
const T* find_source(const data::DatasetPtr& ds) {
  for (const data::Dataset* d = ds.get(); d;) {
    if (const auto* t = dynamic_cast<const T*>(d)) return t;
    const auto* v = dynamic_cast<const data::DatasetView*>(d);
    d = v ? v->base().get() : nullptr;
  }
  return nullptr;
}

const data::TextDataset& text_source(lua_State* L, const data::DatasetPtr& ds, const char* method) {
  const auto* t = find_source<data::TextDataset>(ds);
  if (!t) throw RecipeError(std::string("ds:") + method + ": " + ds->describe() + " is not a data.text dataset (or a view of one)");
  return *t;
}

int ret(lua_State* L, data::DatasetPtr ds) {
  push_dataset(L, std::move(ds));
  return 1;
}

// Raised as a C++ error (not luaL_checktype's Lua error) so the failing call's C++ objects
// are destroyed before Lua sees it.
void check_function(lua_State* L, int idx, const char* what) {
  if (!lua_isfunction(L, idx)) throw RecipeError(std::string(what) + ": expected a function, got " + luaL_typename(L, idx));
}

bool is_empty_table(lua_State* L, int idx) {
  lua_pushnil(L);
  if (!lua_next(L, idx)) return true;
  lua_pop(L, 2);
  return false;
}

// The example with its text fields (strings, tables) and its 0-based index.
void push_example(lua_State* L, const data::Dataset& ds, const data::Example& e, int64_t i) {
  push_row(L, ds, e, i);
  lua_pushnumber(L, static_cast<double>(i));
}

// ds:map(fn[, {remove_columns = {...}}]): fn(example, i) returns fields that are added to
// (or replace those of) the example, as in HF's Dataset.map; remove_columns drops input
// fields first. Lazy: fn runs when an example is read, on the main thread.
int ds_map(lua_State* L) {
  check_function(L, 2, "ds:map");
  const auto ds = check_dataset(L, 1);
  Options o(L, 3, "ds:map");
  std::vector<std::string> remove;
  if (o.has("remove_columns")) {
    lua_getfield(L, 3, "remove_columns");
    const bool list = lua_istable(L, -1);
    for (size_t i = 1; list && i <= lua_objlen(L, -1); ++i) {
      lua_rawgeti(L, -1, static_cast<int>(i));
      if (lua_type(L, -1) == LUA_TSTRING) remove.emplace_back(lua_tostring(L, -1));
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
    if (!list) throw RecipeError("ds:map: remove_columns must be a list of field names");
    auto fields = ds->fields();
    for (const auto& f : ds->text_fields()) fields.push_back(f);  // a mapped dataset holds no text fields anyway
    for (const auto& f : remove)
      if (std::find(fields.begin(), fields.end(), f) == fields.end())
        throw RecipeError("ds:map: remove_columns names '" + f + "', which " + ds->describe() + " does not have");
  }
  o.finish();
  LuaDataFunction fn(L, 2, "map");
  auto mapped = [fn, remove, base = ds.get()](const data::Example& e, int64_t i) {
    data::Example out = e;
    for (const auto& r : remove) out.erase(r);
    for (auto& [k, v] : fn.call([&](lua_State* S) { push_example(S, *base, e, i); }, 2)) out[k] = v;
    return out;
  };
  auto out = std::make_shared<data::MappedDataset>(ds, mapped, /*thread_safe=*/false, ds->describe() + ".map(" + fn.where() + ")");
  fn.learn_dtypes(*out);
  return ret(L, out);
}

// ds:filter(fn): keeps the examples where fn(example, i) is truthy (runs now, once each).
int ds_filter(lua_State* L) {
  check_function(L, 2, "ds:filter");
  const auto ds = check_dataset(L, 1);
  LuaDataFunction fn(L, 2, "filter");
  return ret(L, data::filter(ds, [&fn, &ds](const data::Example& e, int64_t i) {
               bool keep = false;
               fn.call([&](lua_State* S) { push_example(S, *ds, e, i); }, 2, &keep);
               return keep;
             }));
}

// ds:shuffle([seed = 42]) or ds:shuffle{seed = 42}
int ds_shuffle(lua_State* L) {
  const auto ds = check_dataset(L, 1);
  int64_t seed = 42;
  if (lua_istable(L, 2)) {
    Options o(L, 2, "ds:shuffle");
    seed = o.integer("seed", 42);
    o.finish();
  } else if (!lua_isnoneornil(L, 2)) {
    seed = check_int(L, 2, "ds:shuffle seed");
  }
  return ret(L, data::shuffle(ds, seed));
}

// ds:select(start, stop) or ds:select{start =, stop =}: the range [start, stop).
// ds:select{i, j, ...} or ds:select(tensor): those examples, in that order.
int ds_select(lua_State* L) {
  const auto ds = check_dataset(L, 1);
  if (lua_type(L, 2) == LUA_TNUMBER) {
    if (lua_type(L, 3) != LUA_TNUMBER)
      throw RecipeError("ds:select: a range needs start and stop, ds:select(start, stop); a list of indices is ds:select{i, j, ...}");
    return ret(L, data::select_range(ds, check_int(L, 2, "ds:select start"), check_int(L, 3, "ds:select stop")));
  }
  if (at::Tensor* t = test_tensor(L, 2)) {
    if (t->dim() > 1 || t->is_floating_point() || t->scalar_type() == at::kBool)
      throw RecipeError("ds:select: an index tensor must be a 1-D integer tensor");
    const at::Tensor idx = t->detach().to(at::kCPU, at::kLong).contiguous().view({-1});
    return ret(L, data::select(ds, std::vector<int64_t>(idx.data_ptr<int64_t>(), idx.data_ptr<int64_t>() + idx.numel())));
  }
  if (!lua_istable(L, 2))
    throw RecipeError(std::string("ds:select: expected (start, stop), {start =, stop =} or a list of indices, got ") + luaL_typename(L, 2));
  if (!is_empty_table(L, 2) && is_options_table(L, 2)) {
    Options o(L, 2, "ds:select");
    if (!o.has("start") || !o.has("stop")) throw RecipeError("ds:select: a range table needs start and stop");
    const int64_t start = o.integer("start", 0), stop = o.integer("stop", 0);
    o.finish();
    return ret(L, data::select_range(ds, start, stop));
  }
  return ret(L, data::select(ds, check_int_list(L, 2, "ds:select indices")));
}

// ds:train_test_split{test_size = 0.25, seed = 42, shuffle = true} → {train = ds, test = ds}
int ds_split(lua_State* L) {
  const auto ds = check_dataset(L, 1);
  Options o(L, 2, "ds:train_test_split");
  data::SplitOptions s;
  s.test_size = o.number("test_size", 0.25);
  s.seed = o.integer("seed", 42);
  s.shuffle = o.boolean("shuffle", true);
  o.finish();
  const data::Split split = data::train_test_split(ds, s);
  lua_createtable(L, 0, 2);
  push_dataset(L, split.train);
  lua_setfield(L, -2, "train");
  push_dataset(L, split.test);
  lua_setfield(L, -2, "test");
  return 1;
}

int ds_vocab_size(lua_State* L) {
  const auto ds = check_dataset(L, 1);
  lua_pushnumber(L, static_cast<double>(text_source(L, ds, "vocab_size").vocab_size()));
  return 1;
}

// ds:decode(ids): ids as a 1-D integer tensor or a list of numbers → string
int ds_decode(lua_State* L) {
  const auto ds = check_dataset(L, 1);
  const auto& text = text_source(L, ds, "decode");
  std::vector<int64_t> ids;
  if (at::Tensor* t = test_tensor(L, 2)) {
    if (t->dim() > 1 || t->is_floating_point()) throw RecipeError("ds:decode: expected a 1-D integer tensor of ids");
    const at::Tensor c = t->detach().to(at::kCPU, at::kLong).contiguous().view({-1});  // ids may be on the GPU
    ids.assign(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
  } else {
    ids = check_int_list(L, 2, "ds:decode ids");
  }
  const std::string s = text.decode(ids);
  lua_pushlstring(L, s.data(), s.size());
  return 1;
}

// ds:encode(string) → 1-D int64 tensor of ids
int ds_encode(lua_State* L) {
  if (lua_type(L, 2) != LUA_TSTRING) throw RecipeError(std::string("ds:encode: expected a string, got ") + luaL_typename(L, 2));
  const auto ds = check_dataset(L, 1);
  const auto& text = text_source(L, ds, "encode");
  size_t len = 0;
  const char* s = lua_tolstring(L, 2, &len);
  const std::vector<int64_t> ids = text.encode(std::string(s, len));
  push_tensor(L, at::tensor(ids, at::kLong));
  return 1;
}

// ds:coef() → weight (1, features), bias (1): the line data.synthetic.regression drew.
int ds_coef(lua_State* L) {
  const auto ds = check_dataset(L, 1);
  const auto* r = find_source<data::SyntheticRegression>(ds);
  if (!r) throw RecipeError("ds:coef: " + ds->describe() + " is not a data.synthetic.regression dataset (or a view of one)");
  push_tensor(L, r->weight().clone());
  push_tensor(L, r->bias().clone());
  return 2;
}

}  // namespace

void add_dataset_methods(lua_State* L) {
  set_functions(L, {{"map", guarded<ds_map>},
                    {"filter", guarded<ds_filter>},
                    {"shuffle", guarded<ds_shuffle>},
                    {"select", guarded<ds_select>},
                    {"train_test_split", guarded<ds_split>},
                    {"vocab_size", guarded<ds_vocab_size>},
                    {"decode", guarded<ds_decode>},
                    {"encode", guarded<ds_encode>},
                    {"coef", guarded<ds_coef>}});
}

}  // namespace runner::lua
