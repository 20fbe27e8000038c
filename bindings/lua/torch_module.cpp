// require "runner.torch": tensor constructors, RNG, no_grad, dtypes, cat/stack/where, and
// every tensor method as a function (torch.exp(t), torch.matmul(a, b)).
#include <c10/core/GradMode.h>
#include <cmath>
#include <optional>

#include "bindings/lua/lua_common.h"
#include "runtime/core/errors.h"

namespace runner::lua {

namespace {

int ret(lua_State* L, at::Tensor t) {
  push_tensor(L, std::move(t));
  return 1;
}

// Trailing options table {dtype =, device =, requires_grad =} after the positional arguments.
struct Creation {
  int last_positional;
  std::optional<at::ScalarType> dtype;
  bool requires_grad = false;
  std::optional<at::Device> device;  // e.g. ctx.device inside a hook
};
Creation parse_creation(lua_State* L, const char* fn) {
  Creation c{lua_gettop(L), std::nullopt, false, std::nullopt};
  if (c.last_positional >= 1 && is_options_table(L, c.last_positional)) {
    Options o(L, c.last_positional, fn);
    if (o.has("dtype")) c.dtype = parse_dtype(o.string("dtype", ""));
    if (o.has("device")) c.device = parse_device(o.string("device", ""));
    c.requires_grad = o.boolean("requires_grad", false);
    o.finish();
    --c.last_positional;
  }
  return c;
}
at::Tensor finish(at::Tensor t, const Creation& c) {
  if (c.device && t.device() != *c.device) t = t.to(*c.device);
  if (c.requires_grad) {
    if (!t.is_floating_point()) throw RecipeError("requires_grad needs a floating-point dtype");
    t.requires_grad_(true);
  }
  return t;
}
at::TensorOptions opts(const Creation& c, at::ScalarType def = at::kFloat) {
  return at::TensorOptions().dtype(c.dtype.value_or(def)).device(c.device.value_or(at::Device(at::kCPU)));
}

// Nested Lua lists → shape + flat values, tracking what kinds of values appear.
struct Scan {
  std::vector<double> values;
  bool all_integral = true, any_bool = false, any_number = false;
};
void scan(lua_State* L, int idx, size_t depth, std::vector<int64_t>& shape, Scan& s) {
  if (depth > 64) throw RecipeError("torch.tensor: lists nested more than 64 deep (a table that contains itself?)");
  const int t = lua_type(L, idx);
  if (t == LUA_TNUMBER || t == LUA_TBOOLEAN) {
    if (depth != shape.size()) throw RecipeError("torch.tensor: ragged nested list");
    if (t == LUA_TBOOLEAN) {
      s.any_bool = true;
      s.values.push_back(lua_toboolean(L, idx) ? 1.0 : 0.0);
    } else {
      const double v = lua_tonumber(L, idx);
      s.any_number = true;
      s.all_integral = s.all_integral && v == std::floor(v) && std::isfinite(v);
      s.values.push_back(v);
    }
    return;
  }
  if (t != LUA_TTABLE) throw RecipeError(std::string("torch.tensor: expected numbers or nested lists, found a ") + luaL_typename(L, idx));
  const int abs = idx < 0 ? lua_gettop(L) + idx + 1 : idx;
  const int64_t n = static_cast<int64_t>(lua_objlen(L, abs));
  if (depth == shape.size()) {
    if (!s.values.empty() && depth > 0) throw RecipeError("torch.tensor: ragged nested list");
    shape.push_back(n);
  } else if (depth > shape.size() || shape[depth] != n) {
    throw RecipeError("torch.tensor: ragged nested list (rows of different lengths)");
  }
  for (int64_t i = 1; i <= n; ++i) {
    lua_rawgeti(L, abs, static_cast<int>(i));
    scan(L, -1, depth + 1, shape, s);
    lua_pop(L, 1);
  }
}

}  // namespace

// Shared with data.table: Lua value (number, boolean, nested list, tensor) → tensor.
// Integral numbers become int64 (like torch.tensor([1, 2])), others float32.
at::Tensor tensor_from_lua(lua_State* L, int idx, std::optional<at::ScalarType> dtype) {
  if (at::Tensor* t = test_tensor_values(L, idx)) {  // a copy outside autograd's graph, as torch.tensor(t) gives
    const at::Tensor d = t->detach();
    return dtype ? d.to(*dtype) : d;
  }
  std::vector<int64_t> shape;
  Scan s;
  scan(L, idx, 0, shape, s);
  if (s.any_bool && s.any_number) throw RecipeError("torch.tensor: mixes booleans and numbers");
  at::ScalarType inferred = s.any_bool ? at::kBool : (s.all_integral && s.any_number) ? at::kLong : at::kFloat;
  at::Tensor flat = at::tensor(s.values, at::kDouble);
  return flat.view(shape).to(dtype.value_or(inferred));
}

namespace {

int t_tensor(lua_State* L) {
  Creation c = parse_creation(L, "torch.tensor");
  if (c.last_positional != 1) throw RecipeError("torch.tensor: expects (data[, {dtype =, requires_grad =}])");
  // requires_grad asks for a float tensor even when the values look like integers.
  if (c.requires_grad && !c.dtype) c.dtype = at::kFloat;
  return ret(L, finish(tensor_from_lua(L, 1, c.dtype).clone(), c));
}
int t_zeros(lua_State* L) {
  Creation c = parse_creation(L, "torch.zeros");
  return ret(L, finish(at::zeros(check_sizes(L, 1, c.last_positional, "torch.zeros"), opts(c)), c));
}
int t_ones(lua_State* L) {
  Creation c = parse_creation(L, "torch.ones");
  return ret(L, finish(at::ones(check_sizes(L, 1, c.last_positional, "torch.ones"), opts(c)), c));
}
int t_randn(lua_State* L) {
  Creation c = parse_creation(L, "torch.randn");
  return ret(L, finish(at::randn(check_sizes(L, 1, c.last_positional, "torch.randn"), opts(c)), c));
}
int t_rand(lua_State* L) {
  Creation c = parse_creation(L, "torch.rand");
  return ret(L, finish(at::rand(check_sizes(L, 1, c.last_positional, "torch.rand"), opts(c)), c));
}
int t_full(lua_State* L) {
  Creation c = parse_creation(L, "torch.full");
  if (c.last_positional != 2) throw RecipeError("torch.full: expects (size, value[, options])");
  const double v = luaL_checknumber(L, 2);
  const bool integral = std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9e15;  // -math.huge: a float mask value
  const at::ScalarType def = integral ? at::kLong : at::kFloat;
  return ret(L, finish(at::full(check_int_list(L, 1, "torch.full size"), v, opts(c, def)), c));
}
int t_randint(lua_State* L) {
  Creation c = parse_creation(L, "torch.randint");
  int64_t low = 0, high;
  int size_idx;
  if (c.last_positional == 3) {
    low = check_int(L, 1, "torch.randint low"), high = check_int(L, 2, "torch.randint high"), size_idx = 3;
  } else if (c.last_positional == 2) {
    high = check_int(L, 1, "torch.randint high"), size_idx = 2;
  } else {
    throw RecipeError("torch.randint: expects ([low,] high, size[, options])");
  }
  return ret(L, finish(at::randint(low, high, check_int_list(L, size_idx, "torch.randint size"), opts(c, at::kLong)), c));
}
int t_arange(lua_State* L) {
  Creation c = parse_creation(L, "torch.arange");
  double start = 0, end, step = 1;
  if (c.last_positional == 1) end = luaL_checknumber(L, 1);
  else if (c.last_positional == 2 || c.last_positional == 3) {
    start = luaL_checknumber(L, 1), end = luaL_checknumber(L, 2);
    if (c.last_positional == 3) step = luaL_checknumber(L, 3);
  } else throw RecipeError("torch.arange: expects (end) or (start, end[, step])");
  const bool integral = start == std::floor(start) && end == std::floor(end) && step == std::floor(step);
  return ret(L, finish(at::arange(start, end, step, opts(c, integral ? at::kLong : at::kFloat)), c));
}
int t_linspace(lua_State* L) {
  Creation c = parse_creation(L, "torch.linspace");
  if (c.last_positional != 3) throw RecipeError("torch.linspace: expects (start, end, steps)");
  return ret(L, finish(at::linspace(luaL_checknumber(L, 1), luaL_checknumber(L, 2), check_int(L, 3, "torch.linspace steps"), opts(c)), c));
}
int t_eye(lua_State* L) {
  Creation c = parse_creation(L, "torch.eye");
  const int64_t n = check_int(L, 1, "torch.eye n");
  const int64_t m = c.last_positional >= 2 ? check_int(L, 2, "torch.eye m") : n;
  return ret(L, finish(at::eye(n, m, opts(c)), c));
}
// torch.zeros_like(t[, {dtype =, device =, requires_grad =}]): t's dtype and device unless given.
int like(lua_State* L, int which) {
  const char* fn = which == 0 ? "torch.zeros_like" : which == 1 ? "torch.ones_like" : "torch.randn_like";
  const at::Tensor& t = check_tensor(L, 1);
  const Creation c = parse_creation(L, fn);
  if (c.last_positional != 1) throw RecipeError(std::string(fn) + ": expects (tensor[, options])");
  const at::TensorOptions o = t.options().dtype(c.dtype.value_or(t.scalar_type())).device(c.device.value_or(t.device()));
  return ret(L, finish(which == 0 ? at::zeros_like(t, o) : which == 1 ? at::ones_like(t, o) : at::randn_like(t, o), c));
}
int t_zeros_like(lua_State* L) { return like(L, 0); }
int t_ones_like(lua_State* L) { return like(L, 1); }
int t_randn_like(lua_State* L) { return like(L, 2); }

std::vector<at::Tensor> tensor_list(lua_State* L, int idx, const char* fn) {
  if (lua_type(L, idx) != LUA_TTABLE) throw RecipeError(std::string(fn) + ": expects a list of tensors");
  std::vector<at::Tensor> out;
  const size_t n = lua_objlen(L, idx);
  for (size_t i = 1; i <= n; ++i) {
    lua_rawgeti(L, idx, static_cast<int>(i));
    out.push_back(check_tensor(L, -1));
    lua_pop(L, 1);
  }
  if (out.empty()) throw RecipeError(std::string(fn) + ": the list is empty");
  return out;
}
int t_cat(lua_State* L) {
  auto ts = tensor_list(L, 1, "torch.cat");
  const int64_t dim = lua_isnoneornil(L, 2) ? 0 : check_int(L, 2, "torch.cat dim");
  return ret(L, at::cat(ts, dim));
}
int t_stack(lua_State* L) {
  auto ts = tensor_list(L, 1, "torch.stack");
  const int64_t dim = lua_isnoneornil(L, 2) ? 0 : check_int(L, 2, "torch.stack dim");
  return ret(L, at::stack(ts, dim));
}
// torch.einsum("bij,bjk->bik", a, b) or torch.einsum(eq, {a, b})
int t_einsum(lua_State* L) {
  const std::string eq = luaL_checkstring(L, 1);
  std::vector<at::Tensor> ts;
  if (lua_type(L, 2) == LUA_TTABLE && !test_tensor(L, 2)) ts = tensor_list(L, 2, "torch.einsum");
  else
    for (int i = 2; i <= lua_gettop(L); ++i) ts.push_back(check_tensor(L, i));
  return ret(L, at::einsum(eq, ts));
}
int t_randperm(lua_State* L) {
  Creation c = parse_creation(L, "torch.randperm");
  if (c.last_positional != 1) throw RecipeError("torch.randperm: expects (n[, options])");
  return ret(L, finish(at::randperm(check_int(L, 1, "torch.randperm n"), opts(c, at::kLong)), c));
}
int t_where(lua_State* L) { return ret(L, at::where(check_tensor(L, 1), check_operand(L, 2), check_operand(L, 3))); }
int t_is_tensor(lua_State* L) {
  lua_pushboolean(L, test_tensor(L, 1) != nullptr);
  return 1;
}
int t_manual_seed(lua_State* L) {
  at::manual_seed(static_cast<uint64_t>(check_int(L, 1, "torch.manual_seed")));
  return 0;
}

// no_grad(fn, ...): calls fn with gradient recording off and returns its results. The
// guard is gone before a Lua error from fn is re-raised.
int t_no_grad(lua_State* L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  const int base = 0;
  int status;
  {
    c10::NoGradGuard guard;
    status = lua_pcall(L, lua_gettop(L) - 1, LUA_MULTRET, base);
  }
  if (status != 0) return lua_error(L);
  return lua_gettop(L);
}

const std::pair<const char*, const char*> kDtypes[] = {
    {"float32", "float32"}, {"float", "float32"}, {"float64", "float64"}, {"double", "float64"},
    {"float16", "float16"}, {"half", "float16"},  {"bfloat16", "bfloat16"}, {"int64", "int64"},
    {"long", "int64"},      {"int32", "int32"},   {"int", "int32"},         {"int16", "int16"},
    {"short", "int16"},     {"int8", "int8"},     {"uint8", "uint8"},       {"bool", "bool"},
};

}  // namespace

// Pushes the torch module table.
void push_torch_module(lua_State* L) {
  lua_newtable(L);
  // Tensor methods first, so torch.exp(t) == t:exp(); constructors below take precedence.
  luaL_getmetatable(L, kTensorMeta);
  lua_getfield(L, -1, "__index");
  lua_getupvalue(L, -1, 1);  // __index's methods table
  lua_remove(L, -2);
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_settable(L, -6);
  }
  lua_pop(L, 2);
  set_functions(L, {{"tensor", guarded<t_tensor>}, {"zeros", guarded<t_zeros>}, {"ones", guarded<t_ones>},
                    {"full", guarded<t_full>}, {"randn", guarded<t_randn>}, {"rand", guarded<t_rand>},
                    {"randint", guarded<t_randint>}, {"arange", guarded<t_arange>}, {"linspace", guarded<t_linspace>},
                    {"eye", guarded<t_eye>}, {"zeros_like", guarded<t_zeros_like>}, {"ones_like", guarded<t_ones_like>},
                    {"randn_like", guarded<t_randn_like>}, {"cat", guarded<t_cat>}, {"stack", guarded<t_stack>},
                    {"where", guarded<t_where>}, {"einsum", guarded<t_einsum>}, {"randperm", guarded<t_randperm>}, {"is_tensor", guarded<t_is_tensor>},
                    {"manual_seed", guarded<t_manual_seed>}, {"no_grad", t_no_grad}});
  for (const auto& [name, value] : kDtypes) {
    lua_pushstring(L, value);
    lua_setfield(L, -2, name);
  }
}

}  // namespace runner::lua
