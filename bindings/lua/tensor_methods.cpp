// Tensor methods, with PyTorch names and 0-based dims (negative dims count from the end).
// t:size() is a 1-based Lua table (its [1] is dim 0); prefer t:size(d).
#include <optional>

#include "bindings/lua/lua_common.h"
#include "runtime/core/errors.h"
#include "runtime/device/device.h"

namespace runner::lua {

int tensor_release(lua_State* L);  // tensor.cpp
void register_tensor_ops(lua_State* L);  // tensor_ops.cpp

namespace {

at::Tensor& self(lua_State* L) { return check_tensor(L, 1); }
at::Tensor& meta(lua_State* L) { return check_tensor_meta(L, 1); }  // what reads no values
int ret(lua_State* L, at::Tensor t) {
  push_tensor(L, std::move(t));
  return 1;
}
int64_t dim_arg(lua_State* L, int idx, const at::Tensor& t, const char* fn) {
  return normalize_dim(check_int(L, idx, fn), t.dim(), fn);
}

// --- elementwise ----------------------------------------------------------------------
#define UNARY(name, expr)                  \
  int m_##name(lua_State* L) {             \
    const at::Tensor& t = self(L);         \
    return ret(L, expr);                   \
  }
UNARY(exp, t.exp())
UNARY(log, t.log())
UNARY(sqrt, t.sqrt())
UNARY(rsqrt, t.rsqrt())
UNARY(abs, t.abs())
UNARY(neg, t.neg())
UNARY(tanh, t.tanh())
UNARY(sigmoid, t.sigmoid())
UNARY(relu, t.relu())
UNARY(sin, t.sin())
UNARY(cos, t.cos())
UNARY(square, t.square())
UNARY(log1p, t.log1p())
UNARY(floor, t.floor())
UNARY(ceil, t.ceil())
UNARY(round, t.round())
UNARY(sign, t.sign())
UNARY(clone, t.clone())
UNARY(detach, t.detach())
UNARY(contiguous, t.contiguous())
UNARY(t, t.t())
UNARY(float, t.to(at::kFloat))
UNARY(double, t.to(at::kDouble))
UNARY(long, t.to(at::kLong))
UNARY(int, t.to(at::kInt))
UNARY(bool, t.to(at::kBool))
#undef UNARY

// Two operands and nothing else: PyTorch's extra keywords (div's rounding_mode, add's alpha)
// are refused rather than dropped.
#define BINARY(name, fn)                                                                                         \
  int m_##name(lua_State* L) {                                                                                   \
    if (lua_gettop(L) > 2) throw RecipeError(#name ": takes one operand (rounding_mode, alpha and other options are not implemented)"); \
    return ret(L, fn(check_operand(L, 1), check_operand(L, 2)));                                                 \
  }
BINARY(add, at::add)
BINARY(sub, at::sub)
BINARY(mul, at::mul)
BINARY(div, at::div)
BINARY(pow, at::pow)
BINARY(eq, at::eq)
BINARY(ne, at::ne)
BINARY(lt, at::lt)
BINARY(le, at::le)
BINARY(gt, at::gt)
BINARY(ge, at::ge)
BINARY(maximum, at::maximum)
BINARY(minimum, at::minimum)
#undef BINARY

int m_matmul(lua_State* L) { return ret(L, at::matmul(self(L), check_tensor(L, 2))); }

// In-place updates (for use under torch.no_grad, e.g. custom initialisation).
int m_add_(lua_State* L) {
  self(L).add_(check_operand(L, 2));
  lua_settop(L, 1);
  return 1;
}
int m_sub_(lua_State* L) {
  self(L).sub_(check_operand(L, 2));
  lua_settop(L, 1);
  return 1;
}
int m_mul_(lua_State* L) {
  self(L).mul_(check_operand(L, 2));
  lua_settop(L, 1);
  return 1;
}
int m_div_(lua_State* L) {
  self(L).div_(check_operand(L, 2));
  lua_settop(L, 1);
  return 1;
}
int m_zero_(lua_State* L) {
  self(L).zero_();
  lua_settop(L, 1);
  return 1;
}
int m_fill_(lua_State* L) {
  self(L).fill_(luaL_checknumber(L, 2));
  lua_settop(L, 1);
  return 1;
}
int m_copy_(lua_State* L) {
  self(L).copy_(check_tensor(L, 2));
  lua_settop(L, 1);
  return 1;
}

// clamp(min, max) with either nil, or clamp{min = a, max = b}
std::pair<c10::optional<at::Scalar>, c10::optional<at::Scalar>> clamp_bounds(lua_State* L) {
  c10::optional<at::Scalar> lo, hi;
  if (is_options_table(L, 2)) {
    Options o(L, 2, "clamp");
    if (o.has("min")) lo = o.number("min", 0);
    if (o.has("max")) hi = o.number("max", 0);
    o.finish();
  } else {
    if (!lua_isnoneornil(L, 2)) lo = luaL_checknumber(L, 2);
    if (!lua_isnoneornil(L, 3)) hi = luaL_checknumber(L, 3);
  }
  if (!lo && !hi) throw RecipeError("clamp: give min, max or both");
  return {lo, hi};
}
int m_clamp(lua_State* L) {
  const auto [lo, hi] = clamp_bounds(L);
  return ret(L, at::clamp(self(L), lo, hi));
}
int m_clamp_(lua_State* L) {
  const auto [lo, hi] = clamp_bounds(L);
  at::clamp_(self(L), lo, hi);
  lua_settop(L, 1);
  return 1;
}

// --- reductions -----------------------------------------------------------------------
struct Reduce {
  std::optional<std::vector<int64_t>> dims;
  bool keepdim = false;
  std::optional<bool> unbiased;
};

// (dim, keepdim) positionally, or {dim =, keepdim =, unbiased =} as a table.
Reduce parse_reduce(lua_State* L, const char* fn, bool with_unbiased = false) {
  Reduce r;
  if (is_options_table(L, 2)) {
    Options o(L, 2, fn);
    if (o.has("dim")) r.dims = o.int_list("dim", {});
    r.keepdim = o.boolean("keepdim", false);
    if (with_unbiased && o.has("unbiased")) r.unbiased = o.boolean("unbiased", true);
    o.finish();
  } else {  // PyTorch's positional order: (dim, keepdim), and for std/var (dim, unbiased, keepdim)
    if (!lua_isnoneornil(L, 2)) r.dims = check_int_list(L, 2, fn);
    const int keepdim_at = with_unbiased ? 4 : 3;
    if (with_unbiased && !lua_isnoneornil(L, 3)) r.unbiased = lua_toboolean(L, 3) != 0;
    if (!lua_isnoneornil(L, keepdim_at)) r.keepdim = lua_toboolean(L, keepdim_at) != 0;
    if (lua_gettop(L) > keepdim_at) throw RecipeError(std::string(fn) + ": too many arguments (dim, " + (with_unbiased ? "unbiased, " : "") + "keepdim)");
  }
  return r;
}

int m_sum(lua_State* L) {
  const at::Tensor& t = self(L);
  Reduce r = parse_reduce(L, "sum");
  return ret(L, r.dims ? t.sum(*r.dims, r.keepdim) : t.sum());
}
int m_mean(lua_State* L) {
  const at::Tensor& t = self(L);
  Reduce r = parse_reduce(L, "mean");
  return ret(L, r.dims ? t.mean(*r.dims, r.keepdim) : t.mean());
}
int m_std(lua_State* L) {
  const at::Tensor& t = self(L);
  Reduce r = parse_reduce(L, "std", true);
  const bool unbiased = r.unbiased.value_or(true);
  return ret(L, r.dims ? at::std(t, at::OptionalIntArrayRef(*r.dims), unbiased, r.keepdim) : at::std(t, unbiased));
}
int m_var(lua_State* L) {
  const at::Tensor& t = self(L);
  Reduce r = parse_reduce(L, "var", true);
  const bool unbiased = r.unbiased.value_or(true);
  return ret(L, r.dims ? at::var(t, at::OptionalIntArrayRef(*r.dims), unbiased, r.keepdim) : at::var(t, unbiased));
}
int m_logsumexp(lua_State* L) {
  const at::Tensor& t = self(L);
  Reduce r = parse_reduce(L, "logsumexp");
  if (!r.dims) throw RecipeError("logsumexp: needs dim");
  return ret(L, at::logsumexp(t, *r.dims, r.keepdim));
}

// max()/min(): whole tensor; (dim[, keepdim]) → values, indices; (tensor) → elementwise.
int max_min(lua_State* L, bool is_max) {
  const at::Tensor& t = self(L);
  if (at::Tensor* other = test_tensor_values(L, 2)) return ret(L, is_max ? at::maximum(t, *other) : at::minimum(t, *other));
  Reduce r = parse_reduce(L, is_max ? "max" : "min");
  if (!r.dims) return ret(L, is_max ? t.max() : t.min());
  if (r.dims->size() != 1) throw RecipeError(std::string(is_max ? "max" : "min") + ": takes one dim");
  auto [values, indices] = is_max ? t.max((*r.dims)[0], r.keepdim) : t.min((*r.dims)[0], r.keepdim);
  push_tensor(L, values);
  push_tensor(L, indices);
  return 2;
}
int m_max(lua_State* L) { return max_min(L, true); }
int m_min(lua_State* L) { return max_min(L, false); }

int arg_max_min(lua_State* L, bool is_max) {
  const at::Tensor& t = self(L);
  Reduce r = parse_reduce(L, is_max ? "argmax" : "argmin");
  c10::optional<int64_t> dim;  // c10::optional: LibTorch 1.13's is not std::optional
  if (r.dims) {
    if (r.dims->size() != 1) throw RecipeError("argmax/argmin: takes one dim");
    dim = (*r.dims)[0];
  }
  return ret(L, is_max ? t.argmax(dim, r.keepdim) : t.argmin(dim, r.keepdim));
}
int m_argmax(lua_State* L) { return arg_max_min(L, true); }
int m_argmin(lua_State* L) { return arg_max_min(L, false); }
int all_any(lua_State* L, bool all) {
  const at::Tensor& t = self(L);
  Reduce r = parse_reduce(L, all ? "all" : "any");
  if (!r.dims) return ret(L, all ? t.all() : t.any());
  at::Tensor out = t;
  std::vector<int64_t> dims = *r.dims;  // one at a time, highest first (at::all takes one dim in LibTorch 2.4)
  for (auto& d : dims) d = d < 0 ? d + t.dim() : d;
  std::sort(dims.rbegin(), dims.rend());
  for (int64_t d : dims) out = all ? out.all(d, r.keepdim) : out.any(d, r.keepdim);
  return ret(L, out);
}
int m_all(lua_State* L) { return all_any(L, true); }
int m_any(lua_State* L) { return all_any(L, false); }
int m_cumsum(lua_State* L) { return ret(L, self(L).cumsum(check_int(L, 2, "cumsum"))); }

int m_softmax(lua_State* L) {
  const at::Tensor& t = self(L);
  return ret(L, at::softmax(t, dim_arg(L, 2, t, "softmax")));
}
int m_log_softmax(lua_State* L) {
  const at::Tensor& t = self(L);
  return ret(L, at::log_softmax(t, dim_arg(L, 2, t, "log_softmax")));
}

// --- shapes ---------------------------------------------------------------------------
int m_view(lua_State* L) { return ret(L, self(L).view(check_sizes(L, 2, lua_gettop(L), "view"))); }
int m_reshape(lua_State* L) { return ret(L, self(L).reshape(check_sizes(L, 2, lua_gettop(L), "reshape"))); }
int m_expand(lua_State* L) { return ret(L, self(L).expand(check_sizes(L, 2, lua_gettop(L), "expand"))); }
int m_permute(lua_State* L) { return ret(L, self(L).permute(check_sizes(L, 2, lua_gettop(L), "permute"))); }
int m_flatten(lua_State* L) {
  const int64_t start = lua_isnoneornil(L, 2) ? 0 : check_int(L, 2, "flatten");
  const int64_t end = lua_isnoneornil(L, 3) ? -1 : check_int(L, 3, "flatten");
  return ret(L, self(L).flatten(start, end));
}
int m_squeeze(lua_State* L) {
  const at::Tensor& t = self(L);
  return ret(L, lua_isnoneornil(L, 2) ? t.squeeze() : t.squeeze(dim_arg(L, 2, t, "squeeze")));
}
int m_unsqueeze(lua_State* L) {
  const at::Tensor& t = self(L);
  return ret(L, t.unsqueeze(normalize_dim(check_int(L, 2, "unsqueeze"), t.dim() + 1, "unsqueeze")));
}
int m_transpose(lua_State* L) {
  const at::Tensor& t = self(L);
  return ret(L, t.transpose(dim_arg(L, 2, t, "transpose"), dim_arg(L, 3, t, "transpose")));
}

// --- indexing -------------------------------------------------------------------------
int m_index_select(lua_State* L) {
  const at::Tensor& t = self(L);
  return ret(L, t.index_select(dim_arg(L, 2, t, "index_select"), check_tensor(L, 3)));
}
int m_gather(lua_State* L) {
  const at::Tensor& t = self(L);
  return ret(L, t.gather(dim_arg(L, 2, t, "gather"), check_tensor(L, 3)));
}
int m_masked_fill(lua_State* L) { return ret(L, self(L).masked_fill(check_tensor(L, 2), luaL_checknumber(L, 3))); }
int m_masked_fill_(lua_State* L) {
  self(L).masked_fill_(check_tensor(L, 2), luaL_checknumber(L, 3));
  lua_settop(L, 1);
  return 1;
}
int m_narrow(lua_State* L) {
  const at::Tensor& t = self(L);
  return ret(L, t.narrow(dim_arg(L, 2, t, "narrow"), check_int(L, 3, "narrow start"), check_int(L, 4, "narrow length")));
}
int m_select(lua_State* L) {
  const at::Tensor& t = self(L);
  return ret(L, t.select(dim_arg(L, 2, t, "select"), check_int(L, 3, "select index")));
}

// --- conversion and information -------------------------------------------------------
// t:to(dtype), t:to(device) ("cpu", "cuda:0", ctx.device) or t:to{dtype =, device =}.
int m_to(lua_State* L) {
  std::string dtype, device;
  if (lua_type(L, 2) == LUA_TSTRING) {
    const std::string name = lua_tostring(L, 2);
    (is_device_name(name) ? device : dtype) = name;
  } else {
    Options o(L, 2, "to");
    dtype = o.string("dtype", "");
    device = o.string("device", "");
    o.finish();
    if (dtype.empty() && device.empty()) throw RecipeError("to: give a dtype or a device, e.g. t:to(torch.float64) or t:to(ctx.device)");
  }
  at::Tensor t = self(L);
  if (!device.empty()) t = t.to(parse_device(device));
  if (!dtype.empty()) t = t.to(parse_dtype(dtype));
  return ret(L, t);
}
int m_device(lua_State* L) {
  lua_pushstring(L, device::device_string(meta(L).device()).c_str());
  return 1;
}
int m_item(lua_State* L) {
  const at::Tensor& t = self(L);
  if (t.numel() != 1) throw RecipeError("item: the tensor has " + std::to_string(t.numel()) + " elements, not 1");
  if (t.scalar_type() == at::kBool) lua_pushboolean(L, t.item<bool>());
  else lua_pushnumber(L, t.item<double>());
  return 1;
}
void push_list(lua_State* L, const at::Tensor& t) {
  if (t.dim() == 0) {
    if (t.scalar_type() == at::kBool) lua_pushboolean(L, t.item<bool>());
    else lua_pushnumber(L, t.item<double>());
    return;
  }
  lua_createtable(L, static_cast<int>(t.size(0)), 0);
  for (int64_t i = 0; i < t.size(0); ++i) {
    push_list(L, t.select(0, i));
    lua_rawseti(L, -2, static_cast<int>(i + 1));
  }
}
int m_tolist(lua_State* L) {
  push_list(L, self(L).detach().cpu());
  return 1;
}
int m_numel(lua_State* L) {
  lua_pushnumber(L, static_cast<double>(meta(L).numel()));
  return 1;
}
int m_dim(lua_State* L) {
  lua_pushnumber(L, static_cast<double>(meta(L).dim()));
  return 1;
}
int m_size(lua_State* L) {
  const at::Tensor& t = meta(L);
  if (!lua_isnoneornil(L, 2)) {
    lua_pushnumber(L, static_cast<double>(t.size(dim_arg(L, 2, t, "size"))));
    return 1;
  }
  lua_createtable(L, static_cast<int>(t.dim()), 0);
  for (int64_t i = 0; i < t.dim(); ++i) {
    lua_pushnumber(L, static_cast<double>(t.size(i)));
    lua_rawseti(L, -2, static_cast<int>(i + 1));
  }
  return 1;
}
int m_dtype(lua_State* L) {
  lua_pushstring(L, dtype_name(meta(L).scalar_type()).c_str());
  return 1;
}
int m_is_floating_point(lua_State* L) {
  lua_pushboolean(L, meta(L).is_floating_point());
  return 1;
}

// --- autograd -------------------------------------------------------------------------
int m_requires_grad(lua_State* L) {
  lua_pushboolean(L, meta(L).requires_grad());
  return 1;
}
int m_requires_grad_(lua_State* L) {
  meta(L).requires_grad_(lua_isnoneornil(L, 2) ? true : lua_toboolean(L, 2) != 0);
  lua_settop(L, 1);
  return 1;
}
int m_grad(lua_State* L) {
  const at::Tensor& g = meta(L).grad();
  if (!g.defined()) {
    lua_pushnil(L);
    return 1;
  }
  return ret(L, g);
}
int m_backward(lua_State* L) {
  const at::Tensor& t = self(L);
  if (at::Tensor* g = test_tensor(L, 2)) t.backward(*g);
  else t.backward();
  return 0;
}

}  // namespace

void register_tensor_methods(lua_State* L) {
  set_functions(L, {
      {"exp", guarded<m_exp>}, {"log", guarded<m_log>}, {"sqrt", guarded<m_sqrt>}, {"rsqrt", guarded<m_rsqrt>},
      {"abs", guarded<m_abs>}, {"neg", guarded<m_neg>}, {"tanh", guarded<m_tanh>}, {"sigmoid", guarded<m_sigmoid>},
      {"relu", guarded<m_relu>}, {"sin", guarded<m_sin>}, {"cos", guarded<m_cos>}, {"square", guarded<m_square>},
      {"log1p", guarded<m_log1p>}, {"floor", guarded<m_floor>}, {"ceil", guarded<m_ceil>}, {"round", guarded<m_round>},
      {"sign", guarded<m_sign>}, {"clone", guarded<m_clone>}, {"detach", guarded<m_detach>},
      {"contiguous", guarded<m_contiguous>}, {"t", guarded<m_t>}, {"float", guarded<m_float>},
      {"double", guarded<m_double>}, {"long", guarded<m_long>}, {"int", guarded<m_int>}, {"bool", guarded<m_bool>},
      {"add", guarded<m_add>}, {"sub", guarded<m_sub>}, {"mul", guarded<m_mul>}, {"div", guarded<m_div>},
      {"pow", guarded<m_pow>}, {"eq", guarded<m_eq>}, {"ne", guarded<m_ne>}, {"lt", guarded<m_lt>},
      {"le", guarded<m_le>}, {"gt", guarded<m_gt>}, {"ge", guarded<m_ge>}, {"maximum", guarded<m_maximum>},
      {"minimum", guarded<m_minimum>}, {"matmul", guarded<m_matmul>}, {"add_", guarded<m_add_>},
      {"sub_", guarded<m_sub_>}, {"mul_", guarded<m_mul_>}, {"div_", guarded<m_div_>}, {"zero_", guarded<m_zero_>},
      {"fill_", guarded<m_fill_>}, {"copy_", guarded<m_copy_>}, {"clamp", guarded<m_clamp>}, {"clamp_", guarded<m_clamp_>},
      {"sum", guarded<m_sum>}, {"mean", guarded<m_mean>}, {"std", guarded<m_std>}, {"var", guarded<m_var>},
      {"logsumexp", guarded<m_logsumexp>}, {"max", guarded<m_max>}, {"min", guarded<m_min>},
      {"argmax", guarded<m_argmax>}, {"argmin", guarded<m_argmin>}, {"all", guarded<m_all>}, {"any", guarded<m_any>},
      {"cumsum", guarded<m_cumsum>}, {"softmax", guarded<m_softmax>}, {"log_softmax", guarded<m_log_softmax>},
      {"view", guarded<m_view>}, {"reshape", guarded<m_reshape>}, {"expand", guarded<m_expand>},
      {"permute", guarded<m_permute>}, {"flatten", guarded<m_flatten>}, {"squeeze", guarded<m_squeeze>},
      {"unsqueeze", guarded<m_unsqueeze>}, {"transpose", guarded<m_transpose>},
      {"index_select", guarded<m_index_select>}, {"gather", guarded<m_gather>},
      {"masked_fill", guarded<m_masked_fill>}, {"masked_fill_", guarded<m_masked_fill_>}, {"narrow", guarded<m_narrow>}, {"select", guarded<m_select>},
      {"to", guarded<m_to>}, {"item", guarded<m_item>}, {"tolist", guarded<m_tolist>}, {"numel", guarded<m_numel>},
      {"dim", guarded<m_dim>}, {"size", guarded<m_size>}, {"shape", guarded<m_size>}, {"dtype", guarded<m_dtype>}, {"device", guarded<m_device>},
      {"is_floating_point", guarded<m_is_floating_point>}, {"requires_grad", guarded<m_requires_grad>},
      {"requires_grad_", guarded<m_requires_grad_>}, {"grad", guarded<m_grad>}, {"backward", guarded<m_backward>},
      {"release", guarded<tensor_release>},
  });
  register_tensor_ops(L);
}

}  // namespace runner::lua
