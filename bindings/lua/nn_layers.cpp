// require "runner.nn": layer constructors with PyTorch's names, arguments, defaults and
// state-dict keys, and nn.Module{...} for models written in Lua (nn.cpp: the module
// userdata and its methods; nn_init.cpp: nn.init).
#include <algorithm>
#include <limits>

#include "bindings/lua/lua_module.h"
#include "runtime/core/errors.h"
#include "runtime/models/activations.h"
#include "runtime/models/conv_pool.h"
#include "runtime/models/layers.h"

namespace runner::lua {

void push_nn_init(lua_State* L);  // nn_init.cpp

namespace {

using models::Module;
using models::ModulePtr;

int ret(lua_State* L, ModulePtr m) {
  push_module(L, std::move(m));
  return 1;
}
std::vector<int64_t> pair_of(lua_State* L, int idx, const char* what) {
  auto v = check_int_list(L, idx, what);
  if (v.size() == 1) v.push_back(v[0]);
  if (v.size() != 2) throw RecipeError(std::string(what) + ": expected a number or a pair");
  return v;
}
std::vector<int64_t> pair_option(Options& o, const char* key, int64_t def) {
  auto v = o.int_list(key, {def, def});
  if (v.size() == 1) v.push_back(v[0]);
  return v;
}

int nn_linear(lua_State* L) {
  Options o(L, 3, "nn.Linear");
  const bool bias = o.boolean("bias", true);
  o.finish();
  return ret(L, std::make_shared<models::Linear>(check_int(L, 1, "nn.Linear in_features"), check_int(L, 2, "nn.Linear out_features"), bias));
}
int nn_embedding(lua_State* L) {
  Options o(L, 3, "nn.Embedding");
  std::optional<int64_t> pad;
  if (o.has("padding_idx")) pad = o.integer("padding_idx", 0);
  o.finish();
  return ret(L, std::make_shared<models::Embedding>(check_int(L, 1, "nn.Embedding num_embeddings"),
                                                    check_int(L, 2, "nn.Embedding embedding_dim"), pad));
}
int nn_layer_norm(lua_State* L) {
  Options o(L, 2, "nn.LayerNorm");
  const double eps = o.number("eps", 1e-5);
  const bool affine = o.boolean("elementwise_affine", true);
  const bool bias = o.boolean("bias", true);
  o.finish();
  return ret(L, std::make_shared<models::LayerNorm>(check_int_list(L, 1, "nn.LayerNorm normalized_shape"), eps, affine, bias));
}
int nn_dropout(lua_State* L) {
  double p = 0.5;
  if (lua_type(L, 1) == LUA_TNUMBER) {
    p = lua_tonumber(L, 1);
  } else {
    Options o(L, 1, "nn.Dropout");
    p = o.number("p", 0.5);
    o.finish();
  }
  return ret(L, std::make_shared<models::Dropout>(p));
}
int activation(lua_State* L, const char* kind) {
  std::string approximate = "none";
  if (std::string(kind) == "GELU") {
    Options o(L, 1, "nn.GELU");
    approximate = o.string("approximate", "none");
    o.finish();
  }
  return ret(L, std::make_shared<models::Activation>(kind, approximate));
}
int nn_relu(lua_State* L) { return activation(L, "ReLU"); }
int nn_mish(lua_State* L) { return activation(L, "Mish"); }
int nn_hardswish(lua_State* L) { return activation(L, "Hardswish"); }
int nn_hardsigmoid(lua_State* L) { return activation(L, "Hardsigmoid"); }
int nn_softsign(lua_State* L) { return activation(L, "Softsign"); }
int nn_identity(lua_State* L) { return ret(L, std::make_shared<models::Identity>()); }

// A layer's settings given as PyTorch's positional arguments (nn.LeakyReLU(0.2)) or by name
// (nn.LeakyReLU{negative_slope = 0.2}).
std::vector<double> settings(lua_State* L, const char* layer, const std::vector<std::pair<const char*, double>>& names) {
  std::vector<double> out;
  if (lua_istable(L, 1)) {
    Options o(L, 1, layer);
    for (const auto& [name, def] : names) out.push_back(o.number(name, def));
    o.finish();
    return out;
  }
  for (size_t i = 0; i < names.size(); ++i) {
    const int idx = static_cast<int>(i) + 1;
    if (lua_isnoneornil(L, idx)) out.push_back(names[i].second);
    else if (lua_type(L, idx) == LUA_TNUMBER) out.push_back(lua_tonumber(L, idx));
    else throw RecipeError(std::string(layer) + ": " + names[i].first + " must be a number, got " + luaL_typename(L, idx));
  }
  return out;
}
int parametric(lua_State* L, const char* kind, const std::vector<std::pair<const char*, double>>& names) {
  const auto v = settings(L, (std::string("nn.") + kind).c_str(), names);
  return ret(L, std::make_shared<models::ParametricActivation>(kind, v[0], v.size() > 1 ? v[1] : 0.0));
}
int nn_leaky_relu(lua_State* L) { return parametric(L, "LeakyReLU", {{"negative_slope", 0.01}}); }
int nn_elu(lua_State* L) { return parametric(L, "ELU", {{"alpha", 1.0}}); }
int nn_softplus(lua_State* L) { return parametric(L, "Softplus", {{"beta", 1.0}, {"threshold", 20.0}}); }
int nn_hardtanh(lua_State* L) { return parametric(L, "Hardtanh", {{"min_val", -1.0}, {"max_val", 1.0}}); }
int softmax(lua_State* L, bool log) {
  const char* name = log ? "nn.LogSoftmax" : "nn.Softmax";
  int64_t dim = 0;
  if (lua_istable(L, 1)) {
    Options o(L, 1, name);
    if (!o.has("dim")) throw RecipeError(std::string(name) + ": give dim (PyTorch's implicit dim is deprecated)");
    dim = o.integer("dim", 0);
    o.finish();
  } else {
    if (lua_isnoneornil(L, 1)) throw RecipeError(std::string(name) + ": give dim (PyTorch's implicit dim is deprecated)");
    dim = check_int(L, 1, name);
  }
  return ret(L, std::make_shared<models::Softmax>(dim, log));
}
int nn_softmax(lua_State* L) { return softmax(L, false); }
int nn_log_softmax(lua_State* L) { return softmax(L, true); }
int nn_gelu(lua_State* L) { return activation(L, "GELU"); }
int nn_tanh(lua_State* L) { return activation(L, "Tanh"); }
int nn_sigmoid(lua_State* L) { return activation(L, "Sigmoid"); }
int nn_silu(lua_State* L) { return activation(L, "SiLU"); }

std::vector<ModulePtr> module_args(lua_State* L, const char* fn) {
  std::vector<ModulePtr> out;
  if (lua_gettop(L) == 1 && lua_istable(L, 1)) {
    const size_t n = lua_objlen(L, 1);
    for (size_t i = 1; i <= n; ++i) {
      lua_rawgeti(L, 1, static_cast<int>(i));
      ModulePtr m = test_module(L, -1);
      lua_pop(L, 1);
      if (!m) throw RecipeError(std::string(fn) + ": item " + std::to_string(i) + " is not a module");
      out.push_back(m);
    }
    return out;
  }
  for (int i = 1; i <= lua_gettop(L); ++i) out.push_back(peek_module(L, i));  // containers read no weights
  return out;
}
int nn_sequential(lua_State* L) { return ret(L, std::make_shared<models::Sequential>(module_args(L, "nn.Sequential"))); }
int nn_module_list(lua_State* L) { return ret(L, std::make_shared<models::ModuleList>(module_args(L, "nn.ModuleList"))); }
// nn.ModuleDict{name = module, ...}: children in name order (a Lua table has no other).
int nn_module_dict(lua_State* L) {
  std::vector<std::pair<std::string, ModulePtr>> items;
  if (!lua_isnoneornil(L, 1)) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_pushnil(L);
    while (lua_next(L, 1)) {
      if (lua_type(L, -2) != LUA_TSTRING) throw RecipeError("nn.ModuleDict: keys must be names");
      ModulePtr m = test_module(L, -1);
      if (!m) throw RecipeError(std::string("nn.ModuleDict: '") + lua_tostring(L, -2) + "' is not a module");
      items.emplace_back(lua_tostring(L, -2), m);
      lua_pop(L, 1);
    }
  }
  std::sort(items.begin(), items.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return ret(L, std::make_shared<models::ModuleDict>(items));
}

int nn_conv2d(lua_State* L) {
  Options o(L, 4, "nn.Conv2d");
  auto stride = pair_option(o, "stride", 1), padding = pair_option(o, "padding", 0), dilation = pair_option(o, "dilation", 1);
  const int64_t groups = o.integer("groups", 1);
  const bool bias = o.boolean("bias", true);
  o.finish();
  return ret(L, std::make_shared<models::Conv2d>(check_int(L, 1, "nn.Conv2d in_channels"), check_int(L, 2, "nn.Conv2d out_channels"),
                                                 pair_of(L, 3, "nn.Conv2d kernel_size"), stride, padding, dilation, groups, bias));
}
int nn_conv1d(lua_State* L) {
  Options o(L, 4, "nn.Conv1d");
  const int64_t stride = o.integer("stride", 1), padding = o.integer("padding", 0), dilation = o.integer("dilation", 1);
  const int64_t groups = o.integer("groups", 1);
  const bool bias = o.boolean("bias", true);
  o.finish();
  return ret(L, std::make_shared<models::Conv1d>(check_int(L, 1, "nn.Conv1d in_channels"), check_int(L, 2, "nn.Conv1d out_channels"),
                                                 check_int(L, 3, "nn.Conv1d kernel_size"), stride, padding, dilation, groups, bias));
}
int nn_avg_pool2d(lua_State* L) {
  auto kernel = pair_of(L, 1, "nn.AvgPool2d kernel_size");
  Options o(L, 2, "nn.AvgPool2d");
  auto stride = o.has("stride") ? pair_option(o, "stride", 1) : kernel;
  auto padding = pair_option(o, "padding", 0);
  const bool ceil = o.boolean("ceil_mode", false), include_pad = o.boolean("count_include_pad", true);
  o.finish();
  return ret(L, std::make_shared<models::AvgPool2d>(kernel, stride, padding, ceil, include_pad));
}
int nn_adaptive_avg_pool2d(lua_State* L) {
  return ret(L, std::make_shared<models::AdaptiveAvgPool2d>(pair_of(L, 1, "nn.AdaptiveAvgPool2d output_size")));
}
int nn_group_norm(lua_State* L) {
  Options o(L, 3, "nn.GroupNorm");
  const double eps = o.number("eps", 1e-5);
  const bool affine = o.boolean("affine", true);
  o.finish();
  return ret(L, std::make_shared<models::GroupNorm>(check_int(L, 1, "nn.GroupNorm num_groups"), check_int(L, 2, "nn.GroupNorm num_channels"),
                                                    eps, affine));
}
int nn_rms_norm(lua_State* L) {
  Options o(L, 2, "nn.RMSNorm");
  // PyTorch's eps = None is torch.finfo(dtype).eps; HF's LlamaRMSNorm uses 1e-6.
  const double eps = o.number("eps", static_cast<double>(std::numeric_limits<float>::epsilon()));
  const bool affine = o.boolean("elementwise_affine", true);
  o.finish();
  if (!affine) throw RecipeError("nn.RMSNorm: elementwise_affine = false is not supported");
  const auto shape = check_int_list(L, 1, "nn.RMSNorm normalized_shape");
  if (shape.size() != 1) throw RecipeError("nn.RMSNorm: normalized_shape must be one size (the last dimension)");
  return ret(L, std::make_shared<models::RMSNorm>(shape[0], eps));
}
int nn_max_pool2d(lua_State* L) {
  auto kernel = pair_of(L, 1, "nn.MaxPool2d kernel_size");
  Options o(L, 2, "nn.MaxPool2d");
  auto stride = o.has("stride") ? pair_option(o, "stride", 1) : kernel;
  auto padding = pair_option(o, "padding", 0);
  o.finish();
  return ret(L, std::make_shared<models::MaxPool2d>(kernel, stride, padding));
}
int nn_flatten(lua_State* L) {
  int64_t start = 1, end = -1;
  if (lua_type(L, 1) == LUA_TNUMBER) {
    start = check_int(L, 1, "nn.Flatten start_dim");
    if (!lua_isnoneornil(L, 2)) end = check_int(L, 2, "nn.Flatten end_dim");
  } else {
    Options o(L, 1, "nn.Flatten");
    start = o.integer("start_dim", 1);
    end = o.integer("end_dim", -1);
    o.finish();
  }
  return ret(L, std::make_shared<models::Flatten>(start, end));
}

// nn.Module{ name = "MLP", fc = nn.Linear(...), forward = function(self, x) ... end }
// Module fields become children and tensor fields parameters (requires_grad) or buffers,
// in name order (Lua tables have no declaration order); everything else is an attribute.
int nn_module(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_getfield(L, 1, "forward");
  const bool has_forward = lua_isfunction(L, -1);
  lua_pop(L, 1);
  if (!has_forward) throw RecipeError("nn.Module{...} needs a forward = function(self, x) ... end");
  lua_getfield(L, 1, "name");
  const std::string name = lua_isstring(L, -1) ? lua_tostring(L, -1) : "Module";
  lua_pop(L, 1);
  std::vector<std::string> keys;
  lua_pushnil(L);
  while (lua_next(L, 1)) {
    lua_pop(L, 1);
    if (lua_type(L, -1) == LUA_TSTRING) keys.emplace_back(lua_tostring(L, -1));
  }
  std::sort(keys.begin(), keys.end());
  lua_newtable(L);  // attributes
  const int attrs = lua_gettop(L);
  struct Entry {
    std::string key;
    ModulePtr module;
    at::Tensor tensor;
  };
  std::vector<Entry> entries;
  for (const auto& k : keys) {
    lua_getfield(L, 1, k.c_str());
    if (ModulePtr c = test_module(L, -1)) entries.push_back({k, c, {}});
    else if (at::Tensor* t = test_tensor(L, -1)) entries.push_back({k, nullptr, *t});
    else {
      lua_pushvalue(L, -1);
      lua_setfield(L, attrs, k.c_str());
    }
    lua_pop(L, 1);
  }
  const int ref = luaL_ref(L, LUA_REGISTRYINDEX);  // pops the attribute table
  auto m = std::make_shared<LuaModule>(L, ref, name);
  for (const auto& e : entries) {
    if (e.module) m->register_module(e.key, e.module);
    else if (e.tensor.requires_grad()) m->register_parameter(e.key, e.tensor);
    else m->register_buffer(e.key, e.tensor);
  }
  return ret(L, m);
}

// nn.Parameter(t): a leaf tensor that requires grad (becomes a parameter in nn.Module{}).
int nn_parameter(lua_State* L) {
  push_tensor(L, check_tensor(L, 1).detach().requires_grad_(true));
  return 1;
}

}  // namespace

void push_nn_module(lua_State* L) {
  lua_newtable(L);
  set_functions(L, {{"Linear", guarded<nn_linear>},
                    {"Embedding", guarded<nn_embedding>},
                    {"LayerNorm", guarded<nn_layer_norm>},
                    {"RMSNorm", guarded<nn_rms_norm>},
                    {"GroupNorm", guarded<nn_group_norm>},
                    {"Dropout", guarded<nn_dropout>},
                    {"Identity", guarded<nn_identity>},
                    {"ReLU", guarded<nn_relu>},
                    {"GELU", guarded<nn_gelu>},
                    {"Tanh", guarded<nn_tanh>},
                    {"Sigmoid", guarded<nn_sigmoid>},
                    {"SiLU", guarded<nn_silu>},
                    {"Mish", guarded<nn_mish>},
                    {"Hardswish", guarded<nn_hardswish>},
                    {"Hardsigmoid", guarded<nn_hardsigmoid>},
                    {"Softsign", guarded<nn_softsign>},
                    {"LeakyReLU", guarded<nn_leaky_relu>},
                    {"ELU", guarded<nn_elu>},
                    {"Softplus", guarded<nn_softplus>},
                    {"Hardtanh", guarded<nn_hardtanh>},
                    {"Softmax", guarded<nn_softmax>},
                    {"LogSoftmax", guarded<nn_log_softmax>},
                    {"Sequential", guarded<nn_sequential>},
                    {"ModuleList", guarded<nn_module_list>},
                    {"ModuleDict", guarded<nn_module_dict>},
                    {"Conv1d", guarded<nn_conv1d>},
                    {"Conv2d", guarded<nn_conv2d>},
                    {"MaxPool2d", guarded<nn_max_pool2d>},
                    {"AvgPool2d", guarded<nn_avg_pool2d>},
                    {"AdaptiveAvgPool2d", guarded<nn_adaptive_avg_pool2d>},
                    {"Flatten", guarded<nn_flatten>},
                    {"Module", guarded<nn_module>},
                    {"Parameter", guarded<nn_parameter>}});
  push_nn_init(L);
  lua_setfield(L, -2, "init");
}

}  // namespace runner::lua
