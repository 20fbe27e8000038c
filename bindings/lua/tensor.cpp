// The Tensor userdata: an at::Tensor (with autograd) owned by Lua. __gc runs the
// destructor; t:release() frees the data now. Lua's collector cannot see tensor bytes, so
// pushing tensors counts them and triggers a full collection when the bytes referenced
// from Lua have doubled since the last one.
#include <ATen/ScalarOps.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "bindings/lua/lua_common.h"
#include "runtime/core/errors.h"

namespace runner::lua {

namespace {
const char* const kShardedAway =
    "sharded by ZeRO-3 (FSDP full_shard): its values are whole only while its unit runs forward or backward; read the "
    "weights a save wrote (docs/distributed.md, ZeRO-3)";
}  // namespace

// The unit's storage keeps its views, not its memory (ParameterStore::release_memory):
// reading the values would read freed memory.
bool sharded_away(const at::Tensor& t) { return t.defined() && t.numel() > 0 && !t.is_meta() && t.has_storage() && t.storage().data() == nullptr; }

namespace {

struct TensorBox {
  at::Tensor t;
  int64_t bytes = 0;
};

std::atomic<int64_t> g_bytes{0};
int64_t g_next_collect = int64_t{64} << 20;  // first full collection after 64 MiB
constexpr int64_t kMinCollect = int64_t{64} << 20;

int64_t bytes_of(const at::Tensor& t) {
  return t.defined() ? t.numel() * static_cast<int64_t>(t.element_size()) : 0;
}

TensorBox* check_box(lua_State* L, int idx) {
  return static_cast<TensorBox*>(luaL_checkudata(L, idx, kTensorMeta));
}

int tensor_gc(lua_State* L) {
  auto* box = static_cast<TensorBox*>(lua_touserdata(L, 1));
  g_bytes -= box->bytes;
  box->~TensorBox();
  return 0;
}

// --- printing, like PyTorch's repr ---------------------------------------------------
void format_value(std::ostringstream& os, const at::Tensor& t) {
  char buf[64];
  if (t.scalar_type() == at::kBool) {
    os << (t.item<bool>() ? "True" : "False");
  } else if (at::isIntegralType(t.scalar_type(), false)) {
    os << t.item<int64_t>();
  } else {
    const double v = t.item<double>();
    if (std::isnan(v)) os << "nan";
    else if (std::isinf(v)) os << (v > 0 ? "inf" : "-inf");
    else {
      const double a = std::fabs(v);
      std::snprintf(buf, sizeof buf, (a != 0 && (a >= 1e8 || a < 1e-4)) ? "%.4e" : "%.4f", v);
      os << buf;
    }
  }
}

void format_rec(std::ostringstream& os, const at::Tensor& t, int indent, bool summarize) {
  if (t.dim() == 0) {
    format_value(os, t);
    return;
  }
  os << "[";
  const int64_t n = t.size(0);
  const int64_t edge = 3;
  for (int64_t i = 0; i < n; ++i) {
    if (summarize && n > 2 * edge && i == edge) {
      os << (t.dim() > 1 ? "...,\n" + std::string(indent + 1, ' ') : "..., ");
      i = n - edge;
    }
    format_rec(os, t.select(0, i), indent + 1, summarize);
    if (i + 1 < n) os << (t.dim() > 1 ? ",\n" + std::string(indent + 1, ' ') : ", ");
  }
  os << "]";
}

int tensor_tostring(lua_State* L) {
  const at::Tensor& t = check_box(L, 1)->t;
  if (!t.defined()) {
    lua_pushstring(L, "tensor(<released>)");
    return 1;
  }
  if (sharded_away(t)) throw RecipeError(std::string("this parameter is ") + kShardedAway);
  std::ostringstream os;
  os << "tensor(";
  at::Tensor c = t.detach().cpu();
  if (c.numel() == 0) {
    os << "[], size=(";
    for (int64_t i = 0; i < c.dim(); ++i) os << (i ? ", " : "") << c.size(i);
    os << ")";
  } else {
    format_rec(os, c, 7, c.numel() > 1000);
  }
  if (t.scalar_type() != at::kFloat && t.scalar_type() != at::kLong) os << ", dtype=torch." << dtype_name(t.scalar_type());
  if (t.requires_grad()) os << ", requires_grad=True";
  os << ")";
  lua_pushstring(L, os.str().c_str());
  return 1;
}

int tensor_len(lua_State* L) {
  const at::Tensor& t = check_tensor_meta(L, 1);
  if (t.dim() == 0) throw RecipeError("len() of a 0-d tensor");
  lua_pushnumber(L, static_cast<double>(t.size(0)));
  return 1;
}

// Arithmetic metamethods: either operand may be a number (Lua passes them in source order).
int tensor_add(lua_State* L) {
  push_tensor(L, at::add(check_operand(L, 1), check_operand(L, 2)));
  return 1;
}
int tensor_sub(lua_State* L) {
  push_tensor(L, at::sub(check_operand(L, 1), check_operand(L, 2)));
  return 1;
}
int tensor_mul(lua_State* L) {
  push_tensor(L, at::mul(check_operand(L, 1), check_operand(L, 2)));
  return 1;
}
int tensor_div(lua_State* L) {
  push_tensor(L, at::div(check_operand(L, 1), check_operand(L, 2)));
  return 1;
}
int tensor_pow(lua_State* L) {
  // number ^ tensor: the Scalar overload, whose gradient w.r.t. the exponent uses log(base)
  // in floating point (a wrapped integer base would not).
  // A whole base is an integer Scalar, as Python's 2 ** t: an integer tensor stays integer.
  if (lua_type(L, 1) == LUA_TNUMBER) {
    const double v = lua_tonumber(L, 1);
    const bool whole = v == std::floor(v) && std::fabs(v) < 9e15;
    push_tensor(L, at::pow(whole ? at::Scalar(static_cast<int64_t>(v)) : at::Scalar(v), check_tensor(L, 2)));
    return 1;
  }
  push_tensor(L, at::pow(check_operand(L, 1), check_operand(L, 2)));
  return 1;
}
int tensor_mod(lua_State* L) {
  push_tensor(L, at::remainder(check_operand(L, 1), check_operand(L, 2)));
  return 1;
}
int tensor_unm(lua_State* L) {
  push_tensor(L, at::neg(check_tensor(L, 1)));
  return 1;
}
// t.name is a method; t[i] would be nil and fail later far from here, so it says what to use.
int tensor_index(lua_State* L) {
  lua_pushvalue(L, 2);
  lua_rawget(L, lua_upvalueindex(1));
  if (lua_isnil(L, -1) && lua_type(L, 2) == LUA_TNUMBER)
    throw RecipeError("tensors are not indexed with t[i]: use t:select(dim, i), t:narrow(dim, start, length) or "
                      "t:index_select(dim, indices) (0-based, as PyTorch)");
  return 1;
}
int tensor_eq_meta(lua_State* L) {
  // Lua 5.1 turns __eq results into booleans, so == means "same tensor object"; compare
  // values with t:eq(u).
  lua_pushboolean(L, check_box(L, 1)->t.is_same(check_box(L, 2)->t));
  return 1;
}

}  // namespace

void register_tensor_methods(lua_State* L);  // tensor_methods.cpp

void push_tensor(lua_State* L, at::Tensor t) {
  const int64_t b = bytes_of(t);
  void* mem = lua_newuserdata(L, sizeof(TensorBox));
  new (mem) TensorBox{std::move(t), b};
  luaL_getmetatable(L, kTensorMeta);
  lua_setmetatable(L, -2);
  g_bytes += b;
  if (g_bytes > g_next_collect) {
    lua_gc(L, LUA_GCCOLLECT, 0);
    g_next_collect = std::max(kMinCollect, 2 * g_bytes.load());
  }
}

at::Tensor* test_tensor(lua_State* L, int idx) {
  void* p = lua_touserdata(L, idx);
  if (!p || !lua_getmetatable(L, idx)) return nullptr;
  luaL_getmetatable(L, kTensorMeta);
  const bool same = lua_rawequal(L, -1, -2);
  lua_pop(L, 2);
  return same ? &static_cast<TensorBox*>(p)->t : nullptr;
}

at::Tensor& check_tensor_meta(lua_State* L, int idx) {
  at::Tensor* t = test_tensor(L, idx);
  if (!t) throw RecipeError(std::string("expected a tensor, got ") + luaL_typename(L, idx));
  if (!t->defined()) throw RecipeError("this tensor was released with :release()");
  return *t;
}


void check_whole(const std::vector<std::pair<std::string, at::Tensor>>& tensors, const std::string& what) {
  for (const auto& [name, t] : tensors)
    if (sharded_away(t)) throw RecipeError(what + ": '" + name + "' is " + kShardedAway);
}

at::Tensor& check_tensor(lua_State* L, int idx) {
  at::Tensor& t = check_tensor_meta(L, idx);
  if (sharded_away(t)) throw RecipeError(std::string("this parameter is ") + kShardedAway);
  return t;
}

at::Tensor* test_tensor_values(lua_State* L, int idx) {
  at::Tensor* t = test_tensor(L, idx);
  if (t && sharded_away(*t)) throw RecipeError(std::string("this parameter is ") + kShardedAway);
  return t;
}

at::Tensor check_operand(lua_State* L, int idx) {
  switch (lua_type(L, idx)) {
    case LUA_TNUMBER: {
      const double v = lua_tonumber(L, idx);
      if (v == std::floor(v) && std::fabs(v) < 9e15) return at::native::wrapped_scalar_tensor(static_cast<int64_t>(v));
      return at::native::wrapped_scalar_tensor(v);
    }
    case LUA_TBOOLEAN: return at::native::wrapped_scalar_tensor(lua_toboolean(L, idx) != 0);
    default: return check_tensor(L, idx);
  }
}

int64_t lua_tensor_bytes() { return g_bytes.load(); }

int tensor_release(lua_State* L) {
  auto* box = check_box(L, 1);
  g_bytes -= box->bytes;
  box->bytes = 0;
  box->t = at::Tensor();
  return 0;
}

void register_tensor_type(lua_State* L) {
  luaL_newmetatable(L, kTensorMeta);
  set_functions(L, {{"__gc", tensor_gc},
                    {"__tostring", guarded<tensor_tostring>},
                    {"__len", guarded<tensor_len>},
                    {"__add", guarded<tensor_add>},
                    {"__sub", guarded<tensor_sub>},
                    {"__mul", guarded<tensor_mul>},
                    {"__div", guarded<tensor_div>},
                    {"__pow", guarded<tensor_pow>},
                    {"__mod", guarded<tensor_mod>},
                    {"__unm", guarded<tensor_unm>},
                    {"__eq", guarded<tensor_eq_meta>}});
  lua_newtable(L);  // methods, the upvalue of __index
  register_tensor_methods(L);
  lua_pushcclosure(L, guarded<tensor_index>, 1);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
}

}  // namespace runner::lua
