// nn.init: PyTorch's torch.nn.init in Lua, the functions GPT/Llama-style `_init_weights` and
// CNN recipes call (nn.init.normal_(m.weight, 0, 0.02), nn.init.kaiming_uniform_(w, {a =
// math.sqrt(5)}), ...). Same names, positional order and defaults, the same draws from the
// global generator (torch.manual_seed gives PyTorch's numbers), in place without recording
// gradients, returning the tensor.
#include <c10/core/GradMode.h>

#include <cmath>

#include "bindings/lua/lua_common.h"
#include "runtime/core/errors.h"

namespace runner::lua {

namespace {

// Arguments after the tensor: PyTorch's positional order, or one table of keywords.
class InitArgs {
 public:
  InitArgs(lua_State* L, const char* fn) : L_(L), fn_(std::string("nn.init.") + fn), table_(is_options_table(L, 2)) {
    if (table_) options_.emplace(L, 2, fn_);
  }
  double number(int pos, const char* key, double def) {
    if (table_) return options_->number(key, def);
    if (lua_isnoneornil(L_, pos)) return def;
    if (lua_type(L_, pos) != LUA_TNUMBER) throw RecipeError(fn_ + ": " + key + " must be a number, got " + luaL_typename(L_, pos));
    return lua_tonumber(L_, pos);
  }
  std::string string(int pos, const char* key, const std::string& def) {
    if (table_) return options_->string(key, def);
    if (lua_isnoneornil(L_, pos)) return def;
    if (lua_type(L_, pos) != LUA_TSTRING) throw RecipeError(fn_ + ": " + key + " must be a string, got " + luaL_typename(L_, pos));
    return lua_tostring(L_, pos);
  }
  void finish(int max_positional) {
    if (table_) options_->finish();
    else if (lua_gettop(L_) > max_positional + 1) throw RecipeError(fn_ + ": too many arguments");
  }
  const std::string& name() const { return fn_; }

 private:
  lua_State* L_;
  std::string fn_;
  bool table_;
  std::optional<Options> options_;
};

// torch.nn.init._calculate_fan_in_and_fan_out.
std::pair<double, double> fans(const at::Tensor& t, const std::string& fn) {
  if (t.dim() < 2) throw RecipeError(fn + ": fan in and fan out need a tensor of 2 or more dimensions");
  const double receptive = t.dim() > 2 ? static_cast<double>(t[0][0].numel()) : 1.0;
  return {static_cast<double>(t.size(1)) * receptive, static_cast<double>(t.size(0)) * receptive};
}

// torch.nn.init.calculate_gain.
double gain_of(const std::string& nonlinearity, double param, const std::string& fn) {
  if (nonlinearity == "linear" || nonlinearity == "sigmoid" || nonlinearity.rfind("conv", 0) == 0) return 1.0;
  if (nonlinearity == "tanh") return 5.0 / 3.0;
  if (nonlinearity == "relu") return std::sqrt(2.0);
  if (nonlinearity == "leaky_relu") return std::sqrt(2.0 / (1.0 + param * param));
  if (nonlinearity == "selu") return 0.75;
  throw RecipeError(fn + ": unsupported nonlinearity \"" + nonlinearity + "\"");
}

int done(lua_State* L) {
  lua_settop(L, 1);
  return 1;
}

int init_uniform(lua_State* L) {
  InitArgs a(L, "uniform_");
  const double lo = a.number(2, "a", 0), hi = a.number(3, "b", 1);
  a.finish(2);
  c10::NoGradGuard no_grad;
  check_tensor(L, 1).uniform_(lo, hi);
  return done(L);
}
int init_normal(lua_State* L) {
  InitArgs a(L, "normal_");
  const double mean = a.number(2, "mean", 0), std = a.number(3, "std", 1);
  a.finish(2);
  c10::NoGradGuard no_grad;
  check_tensor(L, 1).normal_(mean, std);
  return done(L);
}
int init_constant(lua_State* L) {
  InitArgs a(L, "constant_");
  if (lua_isnoneornil(L, 2)) throw RecipeError("nn.init.constant_: give the value");
  const double v = a.number(2, "val", 0);
  a.finish(1);
  c10::NoGradGuard no_grad;
  check_tensor(L, 1).fill_(v);
  return done(L);
}
int init_zeros(lua_State* L) {
  InitArgs(L, "zeros_").finish(0);
  c10::NoGradGuard no_grad;
  check_tensor(L, 1).zero_();
  return done(L);
}
int init_ones(lua_State* L) {
  InitArgs(L, "ones_").finish(0);
  c10::NoGradGuard no_grad;
  check_tensor(L, 1).fill_(1);
  return done(L);
}
int init_eye(lua_State* L) {
  InitArgs(L, "eye_").finish(0);
  at::Tensor& t = check_tensor(L, 1);
  if (t.dim() != 2) throw RecipeError("nn.init.eye_: only 2-dimensional tensors");
  c10::NoGradGuard no_grad;
  t.copy_(at::eye(t.size(0), t.size(1), t.options()));
  return done(L);
}
int xavier(lua_State* L, bool uniform) {
  InitArgs a(L, uniform ? "xavier_uniform_" : "xavier_normal_");
  const double gain = a.number(2, "gain", 1);
  a.finish(1);
  at::Tensor& t = check_tensor(L, 1);
  const auto [fan_in, fan_out] = fans(t, a.name());
  const double std = gain * std::sqrt(2.0 / (fan_in + fan_out));
  c10::NoGradGuard no_grad;
  if (uniform) t.uniform_(-std::sqrt(3.0) * std, std::sqrt(3.0) * std);
  else t.normal_(0, std);
  return done(L);
}
int init_xavier_uniform(lua_State* L) { return xavier(L, true); }
int init_xavier_normal(lua_State* L) { return xavier(L, false); }
int kaiming(lua_State* L, bool uniform) {
  InitArgs a(L, uniform ? "kaiming_uniform_" : "kaiming_normal_");
  const double slope = a.number(2, "a", 0);
  const std::string mode = a.string(3, "mode", "fan_in"), nonlinearity = a.string(4, "nonlinearity", "leaky_relu");
  a.finish(3);
  if (mode != "fan_in" && mode != "fan_out") throw RecipeError(a.name() + ": mode must be \"fan_in\" or \"fan_out\", got \"" + mode + "\"");
  at::Tensor& t = check_tensor(L, 1);
  if (t.numel() == 0) return done(L);  // PyTorch warns and leaves it
  const auto [fan_in, fan_out] = fans(t, a.name());
  const double std = gain_of(nonlinearity, slope, a.name()) / std::sqrt(mode == "fan_in" ? fan_in : fan_out);
  c10::NoGradGuard no_grad;
  if (uniform) t.uniform_(-std::sqrt(3.0) * std, std::sqrt(3.0) * std);
  else t.normal_(0, std);
  return done(L);
}
int init_kaiming_uniform(lua_State* L) { return kaiming(L, true); }
int init_kaiming_normal(lua_State* L) { return kaiming(L, false); }
// Values drawn from N(mean, std²) within [a, b]: PyTorch's inverse-CDF method, so the same
// generator state gives the same values.
int init_trunc_normal(lua_State* L) {
  InitArgs args(L, "trunc_normal_");
  const double mean = args.number(2, "mean", 0), std = args.number(3, "std", 1), a = args.number(4, "a", -2), b = args.number(5, "b", 2);
  args.finish(4);
  if (!(a < b)) throw RecipeError("nn.init.trunc_normal_: a must be below b");
  const auto cdf = [](double x) { return (1.0 + std::erf(x / std::sqrt(2.0))) / 2.0; };
  const double l = cdf((a - mean) / std), u = cdf((b - mean) / std);
  c10::NoGradGuard no_grad;
  at::Tensor& t = check_tensor(L, 1);
  t.uniform_(2 * l - 1, 2 * u - 1).erfinv_().mul_(std * std::sqrt(2.0)).add_(mean).clamp_(a, b);
  return done(L);
}
// A (semi-)orthogonal matrix from the QR decomposition of a normal draw, as PyTorch's.
int init_orthogonal(lua_State* L) {
  InitArgs a(L, "orthogonal_");
  const double gain = a.number(2, "gain", 1);
  a.finish(1);
  at::Tensor& t = check_tensor(L, 1);
  if (t.dim() < 2) throw RecipeError("nn.init.orthogonal_: only tensors with 2 or more dimensions");
  if (t.numel() == 0) return done(L);
  const int64_t rows = t.size(0), cols = t.numel() / rows;
  c10::NoGradGuard no_grad;
  at::Tensor flat = t.new_empty({rows, cols}).normal_(0, 1);
  if (rows < cols) flat = flat.t();
  auto [q, r] = at::linalg_qr(flat);
  q = q * at::diag(r, 0).sign();
  if (rows < cols) q = q.t();
  t.view_as(q).copy_(q).mul_(gain);
  return done(L);
}
int init_calculate_gain(lua_State* L) {
  const std::string nonlinearity = luaL_checkstring(L, 1);
  const double param = lua_isnoneornil(L, 2) ? 0.01 : luaL_checknumber(L, 2);
  lua_pushnumber(L, gain_of(nonlinearity, param, "nn.init.calculate_gain"));
  return 1;
}

}  // namespace

void push_nn_init(lua_State* L) {
  lua_newtable(L);
  set_functions(L, {{"uniform_", guarded<init_uniform>},
                    {"normal_", guarded<init_normal>},
                    {"constant_", guarded<init_constant>},
                    {"zeros_", guarded<init_zeros>},
                    {"ones_", guarded<init_ones>},
                    {"eye_", guarded<init_eye>},
                    {"xavier_uniform_", guarded<init_xavier_uniform>},
                    {"xavier_normal_", guarded<init_xavier_normal>},
                    {"kaiming_uniform_", guarded<init_kaiming_uniform>},
                    {"kaiming_normal_", guarded<init_kaiming_normal>},
                    {"trunc_normal_", guarded<init_trunc_normal>},
                    {"orthogonal_", guarded<init_orthogonal>},
                    {"calculate_gain", guarded<init_calculate_gain>}});
}

}  // namespace runner::lua
