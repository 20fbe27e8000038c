// Shared helpers of the Lua bindings. This folder is the only code that includes lua.h.
//
// LuaJIT on x64 unwinds Lua errors through C++ frames and lets catch(...) swallow them, so:
// bindings catch specific C++ exception types only (in guarded()), never catch(...), and
// raise the Lua error after every C++ object of the failing call is gone.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <ATen/ATen.h>
#include <lua.hpp>
#include <nlohmann/json.hpp>

#include "runtime/data/dtype_name.h"

namespace runner::lua {

using LuaFn = int (*)(lua_State*);

// Raised when Lua code called from C++ fails; the message already starts with the
// recipe's file:line, so the binding boundary passes it through unchanged.
struct LuaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Runs f; a C++ exception becomes a message on the Lua stack prefixed with the calling
// recipe line, and -1 is returned. Implementation detail of guarded().
int call_catching(lua_State* L, LuaFn f);

// The one boundary between C++ errors and Lua errors: register guarded<f> instead of f.
template <LuaFn F>
int guarded(lua_State* L) {
  const int n = call_catching(L, F);
  if (n >= 0) return n;
  return lua_error(L);  // no C++ object of the failed call is alive any more
}

// --- tensors ------------------------------------------------------------------------
constexpr const char* kTensorMeta = "runner.Tensor";
void push_tensor(lua_State* L, at::Tensor t);
at::Tensor& check_tensor(lua_State* L, int idx);          // errors on a released tensor too
at::Tensor& check_tensor_meta(lua_State* L, int idx);     // the same for shape, dtype and device reads: a sharded parameter passes
// A ZeRO-3 parameter outside its unit's forward and backward: its shape without its memory.
// check_whole throws a RecipeError for the first of `tensors` that is one, by name.
bool sharded_away(const at::Tensor& t);
at::Tensor* test_tensor_values(lua_State* L, int idx);  // test_tensor for an operand whose values are read: a sharded one errors
void check_whole(const std::vector<std::pair<std::string, at::Tensor>>& tensors, const std::string& what);
at::Tensor* test_tensor(lua_State* L, int idx);           // nullptr if not a tensor
// A tensor, or a number/boolean as a wrapped scalar (Python-scalar type promotion; an
// integral Lua number counts as an integer, like 2 in Python).
at::Tensor check_operand(lua_State* L, int idx);
// Bytes of tensor data currently referenced from Lua (for the deliberate GC policy).
int64_t lua_tensor_bytes();
void register_tensor_type(lua_State* L);  // metatable + methods

// --- dtypes ---------------------------------------------------------------------------
at::ScalarType parse_dtype(const std::string& name);   // "float32", "long", ...
using data::dtype_name;                                  // "float32", ...
// --- devices --------------------------------------------------------------------------
bool is_device_name(const std::string& name);          // "cpu", "cuda", "cuda:1"
at::Device parse_device(const std::string& name);      // RecipeError when unknown or absent

// --- argument helpers ---------------------------------------------------------------
// The sandbox (--sandbox): folders under which runner's modules may read and write files
// for the recipe; empty = no restriction. checked_path returns `path` or throws RecipeError.
void set_sandbox_roots(std::vector<std::string> roots);
std::string checked_path(const std::string& path, const std::string& what);

// A Lua number as a recipe author wrote it (math.huge, nan, 1e+30) for error messages.
std::string lua_number_text(double v);
int64_t check_int(lua_State* L, int idx, const char* what);
std::vector<int64_t> check_int_list(lua_State* L, int idx, const char* what);  // number or list
// A size given as varargs (2, 3) or one table ({2, 3}), from index `first` to `last`.
std::vector<int64_t> check_sizes(lua_State* L, int first, int last, const char* what);
bool is_options_table(lua_State* L, int idx);  // a table with string keys (not a list)
int64_t normalize_dim(int64_t dim, int64_t ndim, const char* what);

// Options given as a table: typed getters plus a check that no unknown key was passed.
class Options {
 public:
  Options(lua_State* L, int idx, std::string fn);  // idx may be none/nil: all defaults
  bool has(const char* key);
  double number(const char* key, double def);
  int64_t integer(const char* key, int64_t def);
  bool boolean(const char* key, bool def);
  std::string string(const char* key, const std::string& def);
  at::Tensor tensor(const char* key);  // undefined if absent
  std::vector<int64_t> int_list(const char* key, std::vector<int64_t> def);
  std::vector<std::string> string_list(const char* key, std::vector<std::string> def);  // a list of strings
  void finish();  // errors on keys never asked for, with a did-you-mean

 private:
  void push(const char* key);  // pushes the field (or nil)
  lua_State* L_;
  int idx_;
  std::string fn_;
  std::vector<std::string> asked_;
};

// --- JSON <-> Lua -------------------------------------------------------------------
// Lua value → JSON (integral numbers become integers; list-like tables become arrays).
// Functions, userdata and cyclic tables are errors naming `path`.
nlohmann::json to_json(lua_State* L, int idx, const std::string& path);
void push_json(lua_State* L, const nlohmann::json& j);

// "file:line" of the Lua code `level` frames up (1 = the caller of the C function).
std::string where(lua_State* L, int level = 1);
// A line hook lets errors raised in tail calls (`return F.mse_loss(a, b)`, whose frame is
// gone when the C function fails) still name their line. LuaJIT does not compile while a
// hook is installed, so it is on only while the recipe loads and during the first call of
// each function (lua_module.cpp): `on` nests; last_line() is "" while it is off.
void track_lines(lua_State* L, bool on);
std::string last_line();

// Registers `fns` (name, guarded function) into the table at the top of the stack.
struct Reg {
  const char* name;
  lua_CFunction fn;
};
void set_functions(lua_State* L, const std::vector<Reg>& fns);

}  // namespace runner::lua
