#include "bindings/lua/lua_common.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "runtime/core/did_you_mean.h"
#include "runtime/core/found_files.h"
#include "runtime/core/errors.h"
#include "runtime/device/device.h"

namespace runner::lua {

std::string where(lua_State* L, int level) {
  luaL_where(L, level);
  std::string w = lua_tostring(L, -1);
  lua_pop(L, 1);
  if (!w.empty() && w.back() == ' ') w.pop_back();
  if (!w.empty() && w.back() == ':') w.pop_back();
  return w;
}

namespace {

// The last Lua line executed, kept by a line hook. A binding error raised from a tail call
// (`return F.mse_loss(a, b)`) has no calling frame left for luaL_where to report; this is
// the line the call was made on.
char g_last_source[LUA_IDSIZE] = "";
int g_last_line = 0;

void line_hook(lua_State* L, lua_Debug* ar) {
  if (ar->event != LUA_HOOKLINE || !lua_getinfo(L, "S", ar) || ar->source[0] != '@') return;
  std::snprintf(g_last_source, sizeof g_last_source, "%s", ar->short_src);
  g_last_line = ar->currentline;
}

int g_tracking = 0;  // nesting depth of track_lines(L, true)

}  // namespace

void track_lines(lua_State* L, bool on) {
  if (on ? g_tracking++ > 0 : --g_tracking > 0) return;
  lua_sethook(L, on ? line_hook : nullptr, on ? LUA_MASKLINE : 0, 0);
  g_last_line = 0;  // a line from an earlier traced call would point at the wrong place
}

std::string last_line() { return g_last_line > 0 ? std::string(g_last_source) + ":" + std::to_string(g_last_line) : ""; }

int call_catching(lua_State* L, LuaFn f) {
  std::string message;
  bool located = false;
  try {
    return f(L);
  } catch (const LuaError& e) {
    message = e.what();
    located = true;
  } catch (const c10::Error& e) {
    message = e.what_without_backtrace();
  } catch (const runner::Error& e) {
    message = e.what();
  } catch (const std::exception& e) {
    message = e.what();
  }
  // ATen messages can span lines (shape dumps); the runner prints errors on one line.
  std::replace(message.begin(), message.end(), '\n', ' ');
  std::string w = located ? "" : where(L, 1);
  if (!located && w.empty()) w = last_line();
  if (!w.empty() && message.rfind(w + ": ", 0) == 0) w.clear();  // the error names this line already
  lua_pushstring(L, (w.empty() ? message : w + ": " + message).c_str());
  return -1;
}

at::ScalarType parse_dtype(const std::string& n) {
  if (n == "float32" || n == "float") return at::kFloat;
  if (n == "float64" || n == "double") return at::kDouble;
  if (n == "float16" || n == "half") return at::kHalf;
  if (n == "bfloat16") return at::kBFloat16;
  if (n == "int64" || n == "long") return at::kLong;
  if (n == "int32" || n == "int") return at::kInt;
  if (n == "int16" || n == "short") return at::kShort;
  if (n == "int8") return at::kChar;
  if (n == "uint8") return at::kByte;
  if (n == "bool") return at::kBool;
  throw RecipeError("unknown dtype \"" + n + "\"" +
                    did_you_mean(n, {"float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool"}));
}

bool is_device_name(const std::string& n) { return n == "cpu" || n == "cuda" || n.rfind("cuda:", 0) == 0; }

at::Device parse_device(const std::string& n) {
  if (!is_device_name(n)) throw RecipeError("unknown device \"" + n + "\" (\"cpu\", \"cuda\" or \"cuda:N\"; ctx.device is the batch's)");
  at::Device d(at::kCPU);
  try {
    d = at::Device(n);
  } catch (const c10::Error&) {
    throw RecipeError("unknown device \"" + n + "\" (\"cpu\", \"cuda\" or \"cuda:N\")");
  }
  const int gpus = device::cuda_device_count();
  if (d.is_cuda() && gpus <= (d.has_index() ? d.index() : 0))
    throw RecipeError("device \"" + n + "\" is not available (this process sees " + std::to_string(gpus) + " GPUs)");
  return d;
}


namespace {
std::vector<std::string>& sandbox_roots() {
  static std::vector<std::string> roots;
  return roots;
}
}  // namespace

void set_sandbox_roots(std::vector<std::string> roots) {
  for (auto& r : roots) {
    std::error_code ec;
    const auto canon = std::filesystem::weakly_canonical(std::filesystem::absolute(r), ec);
    if (!ec) r = canon.string();
  }
  sandbox_roots() = std::move(roots);
  // The files data sources find in the folders and globs a recipe names are checked too.
  if (sandbox_roots().empty()) set_found_file_check(nullptr);
  else set_found_file_check([](const std::string& path) { checked_path(path, "a data file"); });
}

std::string checked_path(const std::string& path, const std::string& what) {
  const auto& roots = sandbox_roots();
  if (roots.empty()) return path;
  std::error_code ec;
  const std::string canon = std::filesystem::weakly_canonical(std::filesystem::absolute(path), ec).string();  // resolves .. and links
  for (const auto& root : roots)
    if (!ec && (canon == root || canon.rfind(root + "/", 0) == 0)) return path;
  std::string list;
  for (const auto& root : roots) list += (list.empty() ? "" : ", ") + root;
  throw RecipeError(what + ": \"" + path + "\" is outside the folders a sandboxed recipe may use (" + list + "; add one with --allow_path DIR)");
}

std::string lua_number_text(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "math.huge" : "-math.huge";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.14g", v);
  return buf;
}

int64_t check_int(lua_State* L, int idx, const char* what) {
  if (lua_type(L, idx) != LUA_TNUMBER)
    throw RecipeError(std::string(what) + ": expected an integer, got " + luaL_typename(L, idx));
  const double v = lua_tonumber(L, idx);
  if (v != std::floor(v) || !(std::fabs(v) < 9.2e18))  // also inf (math.huge) and 1e30: the cast would be undefined
    throw RecipeError(std::string(what) + ": expected an integer, got " + lua_number_text(v));
  return static_cast<int64_t>(v);
}

std::vector<int64_t> check_int_list(lua_State* L, int idx, const char* what) {
  if (lua_type(L, idx) == LUA_TNUMBER) return {check_int(L, idx, what)};
  if (lua_type(L, idx) != LUA_TTABLE) throw RecipeError(std::string(what) + ": expected a number or a list of numbers");
  std::vector<int64_t> out;
  const int abs = idx < 0 ? lua_gettop(L) + idx + 1 : idx;
  const size_t n = lua_objlen(L, abs);
  for (size_t i = 1; i <= n; ++i) {
    lua_rawgeti(L, abs, static_cast<int>(i));
    const bool ok = lua_type(L, -1) == LUA_TNUMBER;
    const double v = ok ? lua_tonumber(L, -1) : 0;
    lua_pop(L, 1);
    if (!ok || v != std::floor(v)) throw RecipeError(std::string(what) + ": expected a list of integers");
    if (!(std::fabs(v) < 9.2e18)) throw RecipeError(std::string(what) + ": " + lua_number_text(v) + " is out of range for an integer");
    out.push_back(static_cast<int64_t>(v));
  }
  return out;
}

std::vector<int64_t> check_sizes(lua_State* L, int first, int last, const char* what) {
  if (first == last && lua_type(L, first) == LUA_TTABLE) return check_int_list(L, first, what);
  std::vector<int64_t> out;
  for (int i = first; i <= last; ++i) out.push_back(check_int(L, i, what));
  return out;
}

bool is_options_table(lua_State* L, int idx) {
  if (lua_type(L, idx) != LUA_TTABLE) return false;
  const int abs = idx < 0 ? lua_gettop(L) + idx + 1 : idx;
  lua_pushnil(L);
  while (lua_next(L, abs)) {
    lua_pop(L, 1);
    if (lua_type(L, -1) == LUA_TSTRING) {
      lua_pop(L, 1);
      return true;
    }
  }
  return lua_objlen(L, abs) == 0;  // {} counts as empty options
}

int64_t normalize_dim(int64_t dim, int64_t ndim, const char* what) {
  const int64_t n = std::max<int64_t>(ndim, 1);
  if (dim < -n || dim >= n)
    throw RecipeError(std::string(what) + ": dim " + std::to_string(dim) + " out of range for a " + std::to_string(ndim) +
                      "-d tensor (dims are 0-based, like PyTorch)");
  return dim < 0 ? dim + n : dim;
}

Options::Options(lua_State* L, int idx, std::string fn) : L_(L), idx_(idx < 0 ? lua_gettop(L) + idx + 1 : idx), fn_(std::move(fn)) {
  const int t = lua_type(L, idx_);
  if (t != LUA_TNONE && t != LUA_TNIL && t != LUA_TTABLE)
    throw RecipeError(fn_ + ": expected an options table, got " + luaL_typename(L, idx_));
}

void Options::push(const char* key) {
  asked_.emplace_back(key);
  if (lua_type(L_, idx_) != LUA_TTABLE) {
    lua_pushnil(L_);
    return;
  }
  lua_getfield(L_, idx_, key);
}

bool Options::has(const char* key) {
  push(key);
  const bool present = !lua_isnil(L_, -1);
  lua_pop(L_, 1);
  return present;
}

double Options::number(const char* key, double def) {
  push(key);
  const int t = lua_type(L_, -1);
  const double v = t == LUA_TNUMBER ? lua_tonumber(L_, -1) : def;
  lua_pop(L_, 1);
  if (t != LUA_TNIL && t != LUA_TNUMBER) throw RecipeError(fn_ + ": option '" + key + "' must be a number");
  return v;
}

int64_t Options::integer(const char* key, int64_t def) {
  const double v = number(key, static_cast<double>(def));
  if (v != std::floor(v) || !(std::fabs(v) < 9.2e18))
    throw RecipeError(fn_ + ": option '" + key + "' must be an integer, got " + lua_number_text(v));
  return static_cast<int64_t>(v);
}

bool Options::boolean(const char* key, bool def) {
  push(key);
  const int t = lua_type(L_, -1);
  const bool v = t == LUA_TBOOLEAN ? lua_toboolean(L_, -1) != 0 : def;
  lua_pop(L_, 1);
  if (t != LUA_TNIL && t != LUA_TBOOLEAN) throw RecipeError(fn_ + ": option '" + key + "' must be true or false");
  return v;
}

std::string Options::string(const char* key, const std::string& def) {
  push(key);
  const int t = lua_type(L_, -1);
  std::string v = t == LUA_TSTRING ? lua_tostring(L_, -1) : def;
  lua_pop(L_, 1);
  if (t != LUA_TNIL && t != LUA_TSTRING) throw RecipeError(fn_ + ": option '" + key + "' must be a string");
  return v;
}

at::Tensor Options::tensor(const char* key) {
  push(key);
  at::Tensor out;
  if (!lua_isnil(L_, -1)) {
    at::Tensor* t = test_tensor(L_, -1);
    if (!t) {
      lua_pop(L_, 1);
      throw RecipeError(fn_ + ": option '" + key + "' must be a tensor");
    }
    out = *t;
  }
  lua_pop(L_, 1);
  return out;
}

std::vector<int64_t> Options::int_list(const char* key, std::vector<int64_t> def) {
  push(key);
  if (lua_isnil(L_, -1)) {
    lua_pop(L_, 1);
    return def;
  }
  auto v = check_int_list(L_, -1, (fn_ + ": option '" + key + "'").c_str());
  lua_pop(L_, 1);
  return v;
}

std::vector<std::string> Options::string_list(const char* key, std::vector<std::string> def) {
  push(key);
  if (lua_isnil(L_, -1)) {
    lua_pop(L_, 1);
    return def;
  }
  const std::string what = fn_ + ": option '" + key + "'";
  if (!lua_istable(L_, -1)) throw RecipeError(what + " must be a list of strings");
  std::vector<std::string> out;
  const int n = static_cast<int>(lua_objlen(L_, -1));
  for (int i = 1; i <= n; ++i) {
    lua_rawgeti(L_, -1, i);
    if (lua_type(L_, -1) != LUA_TSTRING) throw RecipeError(what + " must be a list of strings (item " + std::to_string(i) + " is not)");
    out.emplace_back(lua_tostring(L_, -1));
    lua_pop(L_, 1);
  }
  lua_pop(L_, 1);
  return out;
}

void Options::finish() {
  if (lua_type(L_, idx_) != LUA_TTABLE) return;
  lua_pushnil(L_);
  while (lua_next(L_, idx_)) {
    lua_pop(L_, 1);
    std::string key = lua_type(L_, -1) == LUA_TSTRING ? lua_tostring(L_, -1) : "";
    if (key.empty() || std::find(asked_.begin(), asked_.end(), key) == asked_.end()) {
      lua_pop(L_, 1);
      if (key.empty()) throw RecipeError(fn_ + ": options must be named (a table like {dim = 1})");
      throw RecipeError(fn_ + ": unknown option '" + key + "'" + did_you_mean(key, asked_));
    }
  }
}

namespace {

bool is_list(lua_State* L, int idx) {
  const size_t n = lua_objlen(L, idx);
  size_t count = 0;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    ++count;
    if (lua_type(L, -1) != LUA_TNUMBER) {
      lua_pop(L, 1);
      return false;
    }
  }
  return count == n;
}

nlohmann::json to_json_rec(lua_State* L, int idx, const std::string& path, int depth) {
  if (depth > 32) throw RecipeError(path + ": nested too deeply (a cycle?)");
  switch (lua_type(L, idx)) {
    case LUA_TNIL: return nullptr;
    case LUA_TBOOLEAN: return lua_toboolean(L, idx) != 0;
    case LUA_TNUMBER: {
      const double v = lua_tonumber(L, idx);
      if (v == std::floor(v) && std::fabs(v) < 9e15) return static_cast<int64_t>(v);
      return v;
    }
    case LUA_TSTRING: return std::string(lua_tostring(L, idx));
    case LUA_TTABLE: {
      const int abs = idx < 0 ? lua_gettop(L) + idx + 1 : idx;
      if (lua_objlen(L, abs) > 0 && is_list(L, abs)) {
        nlohmann::json arr = nlohmann::json::array();
        const size_t n = lua_objlen(L, abs);
        for (size_t i = 1; i <= n; ++i) {
          lua_rawgeti(L, abs, static_cast<int>(i));
          arr.push_back(to_json_rec(L, -1, path + "[" + std::to_string(i) + "]", depth + 1));
          lua_pop(L, 1);
        }
        return arr;
      }
      nlohmann::json obj = nlohmann::json::object();
      lua_pushnil(L);
      while (lua_next(L, abs)) {
        if (lua_type(L, -2) != LUA_TSTRING) {
          lua_pop(L, 2);
          throw RecipeError(path + ": mixes list items and named keys");
        }
        const std::string key = lua_tostring(L, -2);
        obj[key] = to_json_rec(L, -1, path + "." + key, depth + 1);
        lua_pop(L, 1);
      }
      return obj;
    }
    default:
      throw RecipeError(path + ": expected a number, string, boolean or table, got " + luaL_typename(L, idx));
  }
}

}  // namespace

nlohmann::json to_json(lua_State* L, int idx, const std::string& path) { return to_json_rec(L, idx, path, 0); }

void push_json(lua_State* L, const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::null: lua_pushnil(L); break;
    case nlohmann::json::value_t::boolean: lua_pushboolean(L, j.get<bool>()); break;
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
    case nlohmann::json::value_t::number_float: lua_pushnumber(L, j.get<double>()); break;
    case nlohmann::json::value_t::string: lua_pushstring(L, j.get<std::string>().c_str()); break;
    case nlohmann::json::value_t::array: {
      lua_createtable(L, static_cast<int>(j.size()), 0);
      int i = 1;
      for (const auto& v : j) {
        push_json(L, v);
        lua_rawseti(L, -2, i++);
      }
      break;
    }
    case nlohmann::json::value_t::object: {
      lua_createtable(L, 0, static_cast<int>(j.size()));
      for (auto it = j.begin(); it != j.end(); ++it) {
        push_json(L, it.value());
        lua_setfield(L, -2, it.key().c_str());
      }
      break;
    }
    default: lua_pushnil(L);
  }
}

void set_functions(lua_State* L, const std::vector<Reg>& fns) {
  for (const auto& r : fns) {
    lua_pushcfunction(L, r.fn);
    lua_setfield(L, -2, r.name);
  }
}

}  // namespace runner::lua
