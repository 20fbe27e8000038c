// Tensor methods beyond tensor_methods.cpp's core: sorting and selection (topk, sort),
// splitting (chunk, split, unbind), masks (tril, triu, isnan, ...), products (mm, bmm, outer)
// and the smaller elementwise ops recipes port from PyTorch. PyTorch's names, positional
// order and defaults; dims are 0-based; what PyTorch returns as a tuple is a Lua list
// (1-based) or, for values/indices pairs, two results. torch.X(t, ...) is t:X(...).
#include <optional>

#include "bindings/lua/lua_common.h"
#include "runtime/core/errors.h"

namespace runner::lua {

namespace {

at::Tensor& self(lua_State* L) { return check_tensor(L, 1); }
int ret(lua_State* L, at::Tensor t) {
  push_tensor(L, std::move(t));
  return 1;
}
int ret2(lua_State* L, const std::tuple<at::Tensor, at::Tensor>& p) {
  push_tensor(L, std::get<0>(p));
  push_tensor(L, std::get<1>(p));
  return 2;
}
int ret_list(lua_State* L, const std::vector<at::Tensor>& ts) {
  lua_createtable(L, static_cast<int>(ts.size()), 0);
  for (size_t i = 0; i < ts.size(); ++i) {
    push_tensor(L, ts[i]);
    lua_rawseti(L, -2, static_cast<int>(i + 1));
  }
  return 1;
}
int64_t opt_int(lua_State* L, int idx, int64_t def, const char* what) { return lua_isnoneornil(L, idx) ? def : check_int(L, idx, what); }
bool opt_bool(lua_State* L, int idx, bool def) { return lua_isnoneornil(L, idx) ? def : lua_toboolean(L, idx) != 0; }
void at_most(lua_State* L, int n, const char* usage) {
  if (lua_gettop(L) > n) throw RecipeError(std::string(usage) + ": too many arguments");
}

// --- elementwise ----------------------------------------------------------------------
#define UNARY(name, expr)          \
  int m_##name(lua_State* L) {     \
    const at::Tensor& t = self(L); \
    return ret(L, expr);           \
  }
UNARY(erf, t.erf())
UNARY(expm1, t.expm1())
UNARY(log2, t.log2())
UNARY(log10, t.log10())
UNARY(reciprocal, t.reciprocal())
UNARY(trunc, t.trunc())
UNARY(isnan, t.isnan())
UNARY(isinf, t.isinf())
UNARY(isfinite, t.isfinite())
UNARY(logical_not, t.logical_not())
UNARY(half, t.to(at::kHalf))
UNARY(bfloat16, t.to(at::kBFloat16))
UNARY(nonzero, t.nonzero())
#undef UNARY

#define BINARY(name, fn)                                                   \
  int m_##name(lua_State* L) {                                             \
    at_most(L, 2, #name "(other)");                                        \
    return ret(L, fn(check_operand(L, 1), check_operand(L, 2)));           \
  }
BINARY(logical_and, at::logical_and)
BINARY(logical_or, at::logical_or)
BINARY(remainder, at::remainder)
BINARY(fmod, at::fmod)
#undef BINARY

int m_clamp_min(lua_State* L) { return ret(L, self(L).clamp_min(luaL_checknumber(L, 2))); }
int m_clamp_max(lua_State* L) { return ret(L, self(L).clamp_max(luaL_checknumber(L, 2))); }
// nan_to_num([nan = 0[, posinf[, neginf]]]): the infinities default to the dtype's extremes.
int m_nan_to_num(lua_State* L) {
  std::optional<double> pos, neg;
  if (!lua_isnoneornil(L, 3)) pos = luaL_checknumber(L, 3);
  if (!lua_isnoneornil(L, 4)) neg = luaL_checknumber(L, 4);
  return ret(L, self(L).nan_to_num(lua_isnoneornil(L, 2) ? 0.0 : luaL_checknumber(L, 2), pos, neg));
}
int m_lerp(lua_State* L) {
  const at::Tensor& t = self(L);
  const at::Tensor& end = check_tensor(L, 2);
  if (at::Tensor* w = test_tensor_values(L, 3)) return ret(L, t.lerp(end, *w));
  return ret(L, t.lerp(end, luaL_checknumber(L, 3)));
}

// --- reductions -----------------------------------------------------------------------
// prod([dim[, keepdim]]), amax/amin(dim[, keepdim]), count_nonzero([dim]), cumprod(dim)
int m_prod(lua_State* L) {
  const at::Tensor& t = self(L);
  at_most(L, 3, "prod([dim, keepdim])");
  if (lua_isnoneornil(L, 2)) return ret(L, t.prod());
  return ret(L, t.prod(check_int(L, 2, "prod dim"), opt_bool(L, 3, false)));
}
int m_amax(lua_State* L) { return ret(L, self(L).amax(check_int_list(L, 2, "amax dim"), opt_bool(L, 3, false))); }
int m_amin(lua_State* L) { return ret(L, self(L).amin(check_int_list(L, 2, "amin dim"), opt_bool(L, 3, false))); }
int m_count_nonzero(lua_State* L) {
  const at::Tensor& t = self(L);
  return ret(L, lua_isnoneornil(L, 2) ? t.count_nonzero() : t.count_nonzero(check_int_list(L, 2, "count_nonzero dim")));
}
int m_cumprod(lua_State* L) { return ret(L, self(L).cumprod(check_int(L, 2, "cumprod dim"))); }
// norm([p = 2[, dim[, keepdim]]]): the vector norm, over all elements or along dim.
int m_norm(lua_State* L) {
  const at::Tensor& t = self(L);
  at_most(L, 4, "norm([p, dim, keepdim])");
  const double p = lua_isnoneornil(L, 2) ? 2.0 : luaL_checknumber(L, 2);
  if (lua_isnoneornil(L, 3)) return ret(L, at::linalg_vector_norm(t, p, c10::nullopt, opt_bool(L, 4, false)));
  return ret(L, at::linalg_vector_norm(t, p, check_int_list(L, 3, "norm dim"), opt_bool(L, 4, false)));
}

// --- sorting and selection ------------------------------------------------------------
// topk(k[, dim = -1[, largest = true[, sorted = true]]]) → values, indices
int m_topk(lua_State* L) {
  at_most(L, 5, "topk(k[, dim, largest, sorted])");
  return ret2(L, self(L).topk(check_int(L, 2, "topk k"), opt_int(L, 3, -1, "topk dim"), opt_bool(L, 4, true), opt_bool(L, 5, true)));
}
// sort([dim = -1[, descending = false]]) → values, indices (stable, as sort(stable=True))
int m_sort(lua_State* L) {
  at_most(L, 3, "sort([dim, descending])");
  return ret2(L, self(L).sort(/*stable=*/true, opt_int(L, 2, -1, "sort dim"), opt_bool(L, 3, false)));
}
int m_argsort(lua_State* L) {
  at_most(L, 3, "argsort([dim, descending])");
  return ret(L, std::get<1>(self(L).sort(/*stable=*/true, opt_int(L, 2, -1, "argsort dim"), opt_bool(L, 3, false))));
}
int m_masked_select(lua_State* L) { return ret(L, self(L).masked_select(check_tensor(L, 2))); }
// scatter(dim, index, src) with src a tensor or a number; scatter_add(dim, index, src)
int m_scatter(lua_State* L) {
  const at::Tensor& t = self(L);
  const int64_t dim = check_int(L, 2, "scatter dim");
  const at::Tensor& index = check_tensor(L, 3);
  if (at::Tensor* src = test_tensor_values(L, 4)) return ret(L, t.scatter(dim, index, *src));
  return ret(L, t.scatter(dim, index, luaL_checknumber(L, 4)));
}
int m_scatter_add(lua_State* L) {
  return ret(L, self(L).scatter_add(check_int(L, 2, "scatter_add dim"), check_tensor(L, 3), check_tensor(L, 4)));
}
// multinomial(num_samples[, replacement = false]): rows of probabilities → sampled indices
int m_multinomial(lua_State* L) {
  return ret(L, self(L).multinomial(check_int(L, 2, "multinomial num_samples"), opt_bool(L, 3, false)));
}

// --- splitting and layout -------------------------------------------------------------
int m_chunk(lua_State* L) { return ret_list(L, self(L).chunk(check_int(L, 2, "chunk chunks"), opt_int(L, 3, 0, "chunk dim"))); }
// split(size | {sizes}[, dim = 0])
int m_split(lua_State* L) {
  const at::Tensor& t = self(L);
  const int64_t dim = opt_int(L, 3, 0, "split dim");
  if (lua_type(L, 2) == LUA_TNUMBER) return ret_list(L, t.split(check_int(L, 2, "split size"), dim));
  return ret_list(L, t.split_with_sizes(check_int_list(L, 2, "split sizes"), dim));
}
int m_unbind(lua_State* L) { return ret_list(L, self(L).unbind(opt_int(L, 2, 0, "unbind dim"))); }
int m_tril(lua_State* L) { return ret(L, self(L).tril(opt_int(L, 2, 0, "tril diagonal"))); }
int m_triu(lua_State* L) { return ret(L, self(L).triu(opt_int(L, 2, 0, "triu diagonal"))); }
int m_diag(lua_State* L) { return ret(L, self(L).diag(opt_int(L, 2, 0, "diag diagonal"))); }
int m_flip(lua_State* L) { return ret(L, self(L).flip(check_int_list(L, 2, "flip dims"))); }
// roll(shifts[, dims]): without dims the flattened tensor rolls, as PyTorch
int m_roll(lua_State* L) {
  const at::Tensor& t = self(L);
  const auto shifts = check_int_list(L, 2, "roll shifts");
  return ret(L, lua_isnoneornil(L, 3) ? t.roll(shifts) : t.roll(shifts, check_int_list(L, 3, "roll dims")));
}
// Lua's `repeat` is a keyword, so t:repeat(...) does not parse: tile is the name to use
// (t["repeat"](t, ...) reaches PyTorch's repeat too).
int m_repeat(lua_State* L) { return ret(L, self(L).repeat(check_sizes(L, 2, lua_gettop(L), "repeat"))); }
int m_tile(lua_State* L) { return ret(L, self(L).tile(check_sizes(L, 2, lua_gettop(L), "tile"))); }
// repeat_interleave(repeats[, dim]): repeats a number or a tensor; without dim, flattened
int m_repeat_interleave(lua_State* L) {
  const at::Tensor& t = self(L);
  std::optional<int64_t> dim;
  if (!lua_isnoneornil(L, 3)) dim = check_int(L, 3, "repeat_interleave dim");
  if (at::Tensor* r = test_tensor_values(L, 2)) return ret(L, t.repeat_interleave(*r, dim));
  return ret(L, t.repeat_interleave(check_int(L, 2, "repeat_interleave repeats"), dim));
}
int m_view_as(lua_State* L) { return ret(L, self(L).view_as(check_tensor_meta(L, 2))); }
int m_reshape_as(lua_State* L) { return ret(L, self(L).reshape_as(check_tensor_meta(L, 2))); }
int m_expand_as(lua_State* L) { return ret(L, self(L).expand_as(check_tensor_meta(L, 2))); }
int m_type_as(lua_State* L) { return ret(L, self(L).type_as(check_tensor_meta(L, 2))); }
// new_zeros/new_ones(sizes...), new_full(size, value): self's dtype and device
int m_new_zeros(lua_State* L) { return ret(L, self(L).new_zeros(check_sizes(L, 2, lua_gettop(L), "new_zeros"))); }
int m_new_ones(lua_State* L) { return ret(L, self(L).new_ones(check_sizes(L, 2, lua_gettop(L), "new_ones"))); }
int m_new_full(lua_State* L) { return ret(L, self(L).new_full(check_int_list(L, 2, "new_full size"), luaL_checknumber(L, 3))); }

// --- products and comparisons as a whole ----------------------------------------------
int m_mm(lua_State* L) { return ret(L, self(L).mm(check_tensor(L, 2))); }
int m_bmm(lua_State* L) { return ret(L, self(L).bmm(check_tensor(L, 2))); }
int m_mv(lua_State* L) { return ret(L, self(L).mv(check_tensor(L, 2))); }
int m_dot(lua_State* L) { return ret(L, self(L).dot(check_tensor(L, 2))); }
int m_outer(lua_State* L) { return ret(L, self(L).outer(check_tensor(L, 2))); }
// allclose(other[, rtol = 1e-5[, atol = 1e-8]]) and equal(other): booleans
int m_allclose(lua_State* L) {
  const double rtol = lua_isnoneornil(L, 3) ? 1e-5 : luaL_checknumber(L, 3);
  const double atol = lua_isnoneornil(L, 4) ? 1e-8 : luaL_checknumber(L, 4);
  lua_pushboolean(L, self(L).allclose(check_tensor(L, 2), rtol, atol));
  return 1;
}
int m_equal(lua_State* L) {
  lua_pushboolean(L, self(L).equal(check_tensor(L, 2)));
  return 1;
}

// In-place draws from the global generator (torch.manual_seed), PyTorch's defaults.
int m_normal_(lua_State* L) {
  at_most(L, 3, "normal_(mean, std)");
  self(L).normal_(lua_isnoneornil(L, 2) ? 0.0 : luaL_checknumber(L, 2), lua_isnoneornil(L, 3) ? 1.0 : luaL_checknumber(L, 3));
  lua_settop(L, 1);
  return 1;
}
int m_uniform_(lua_State* L) {
  at_most(L, 3, "uniform_(from, to)");
  self(L).uniform_(lua_isnoneornil(L, 2) ? 0.0 : luaL_checknumber(L, 2), lua_isnoneornil(L, 3) ? 1.0 : luaL_checknumber(L, 3));
  lua_settop(L, 1);
  return 1;
}

}  // namespace

void register_tensor_ops(lua_State* L) {
  set_functions(L, {
      {"erf", guarded<m_erf>}, {"expm1", guarded<m_expm1>}, {"log2", guarded<m_log2>}, {"log10", guarded<m_log10>},
      {"reciprocal", guarded<m_reciprocal>}, {"trunc", guarded<m_trunc>}, {"isnan", guarded<m_isnan>},
      {"isinf", guarded<m_isinf>}, {"isfinite", guarded<m_isfinite>}, {"logical_not", guarded<m_logical_not>},
      {"half", guarded<m_half>}, {"bfloat16", guarded<m_bfloat16>}, {"nonzero", guarded<m_nonzero>},
      {"logical_and", guarded<m_logical_and>}, {"logical_or", guarded<m_logical_or>},
      {"remainder", guarded<m_remainder>}, {"fmod", guarded<m_fmod>}, {"clamp_min", guarded<m_clamp_min>},
      {"clamp_max", guarded<m_clamp_max>}, {"nan_to_num", guarded<m_nan_to_num>}, {"lerp", guarded<m_lerp>},
      {"prod", guarded<m_prod>}, {"amax", guarded<m_amax>}, {"amin", guarded<m_amin>},
      {"count_nonzero", guarded<m_count_nonzero>}, {"cumprod", guarded<m_cumprod>}, {"norm", guarded<m_norm>},
      {"topk", guarded<m_topk>}, {"sort", guarded<m_sort>}, {"argsort", guarded<m_argsort>},
      {"masked_select", guarded<m_masked_select>}, {"scatter", guarded<m_scatter>},
      {"scatter_add", guarded<m_scatter_add>}, {"multinomial", guarded<m_multinomial>},
      {"chunk", guarded<m_chunk>}, {"split", guarded<m_split>}, {"unbind", guarded<m_unbind>},
      {"tril", guarded<m_tril>}, {"triu", guarded<m_triu>}, {"diag", guarded<m_diag>}, {"flip", guarded<m_flip>},
      {"roll", guarded<m_roll>}, {"repeat", guarded<m_repeat>}, {"tile", guarded<m_tile>}, {"repeat_interleave", guarded<m_repeat_interleave>},
      {"view_as", guarded<m_view_as>}, {"reshape_as", guarded<m_reshape_as>}, {"expand_as", guarded<m_expand_as>},
      {"type_as", guarded<m_type_as>}, {"new_zeros", guarded<m_new_zeros>}, {"new_ones", guarded<m_new_ones>},
      {"new_full", guarded<m_new_full>}, {"mm", guarded<m_mm>}, {"bmm", guarded<m_bmm>}, {"mv", guarded<m_mv>},
      {"dot", guarded<m_dot>}, {"outer", guarded<m_outer>}, {"allclose", guarded<m_allclose>},
      {"equal", guarded<m_equal>}, {"normal_", guarded<m_normal_>}, {"uniform_", guarded<m_uniform_>},
  });
}

}  // namespace runner::lua
