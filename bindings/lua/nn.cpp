// require "runner.nn": layers with PyTorch names and state-dict keys, and nn.Module{...}
// for models written in Lua. Module userdata: m(x), m:forward(x), m.weight, m.fc1, seq[0]
// (container indices are 0-based, matching their state-dict names "0.weight").
#include <algorithm>

#include "bindings/lua/lua_module.h"
#include "runtime/core/errors.h"
#include "runtime/models/parameter_store.h"
#include "runtime/models/layers.h"

namespace runner::lua {

namespace {

using models::Module;
using models::ModulePtr;

struct ModuleBox {
  ModulePtr m;
};

int module_gc(lua_State* L) {
  static_cast<ModuleBox*>(lua_touserdata(L, 1))->~ModuleBox();
  return 0;
}

// Host tensors a recipe makes (a prompt, a sample's context) go to the device of the
// module's weights, as the Trainer moves its batches: the same recipe runs on the CPU and on
// a GPU. Tensors on another accelerator are left to ATen's device check.
at::Tensor to_module_device(const at::Tensor& x, const std::optional<at::Device>& device) {
  return x.defined() && device && x.is_cpu() && !device->is_cpu() ? x.to(*device) : x;
}

// m(x): a tensor for layers, the batch table for models.
int module_call(lua_State* L) {
  ModulePtr m = check_module(L, 1);
  const std::optional<at::Device> device = m->device();
  if (at::Tensor* x = test_tensor_values(L, 2)) {
    push_tensor(L, m->forward(to_module_device(*x, device)));
    return 1;
  }
  if (lua_istable(L, 2)) {
    models::TensorMap batch = to_tensor_map(L, 2, "the batch");
    for (auto& [name, t] : batch) t = to_module_device(t, device);
    push_tensor_map(L, m->forward_batch(batch));
    return 1;
  }
  throw RecipeError(m->type_name() + ": call it with a tensor or a batch table, got " + luaL_typename(L, 2));
}

int module_parameters(lua_State* L) {
  ModulePtr m = check_module(L, 1);
  auto params = m->named_parameters();
  lua_createtable(L, static_cast<int>(params.size()), 0);
  for (size_t i = 0; i < params.size(); ++i) {
    push_tensor(L, params[i].second);
    lua_rawseti(L, -2, static_cast<int>(i + 1));
  }
  return 1;
}

// for name, p in m:named_parameters() do ... end   (model order)
int named_iter(lua_State* L) {
  const int i = static_cast<int>(lua_tonumber(L, lua_upvalueindex(2))) + 1;
  lua_pushnumber(L, i);
  lua_replace(L, lua_upvalueindex(2));
  lua_rawgeti(L, lua_upvalueindex(1), 2 * i - 1);
  if (lua_isnil(L, -1)) return 1;
  lua_rawgeti(L, lua_upvalueindex(1), 2 * i);
  return 2;
}
int push_named_iterator(lua_State* L, const models::NamedTensorList& list) {
  lua_createtable(L, static_cast<int>(2 * list.size()), 0);
  for (size_t i = 0; i < list.size(); ++i) {
    lua_pushstring(L, list[i].first.c_str());
    lua_rawseti(L, -2, static_cast<int>(2 * i + 1));
    push_tensor(L, list[i].second);
    lua_rawseti(L, -2, static_cast<int>(2 * i + 2));
  }
  lua_pushnumber(L, 0);
  lua_pushcclosure(L, named_iter, 2);
  return 1;
}
int module_named_parameters(lua_State* L) { return push_named_iterator(L, check_module(L, 1)->named_parameters()); }
int module_named_buffers(lua_State* L) { return push_named_iterator(L, check_module(L, 1)->named_buffers()); }

int module_state_dict(lua_State* L) {
  auto sd = check_module(L, 1)->state_dict();
  lua_createtable(L, 0, static_cast<int>(sd.size()));
  for (const auto& [name, t] : sd) {
    push_tensor(L, t.detach());
    lua_setfield(L, -2, name.c_str());
  }
  return 1;
}
int module_load_state_dict(lua_State* L) {
  ModulePtr m = check_module(L, 1);
  models::TensorMap given = to_tensor_map(L, 2, "load_state_dict's argument");
  Options o(L, 3, "load_state_dict");
  const bool strict = o.boolean("strict", true);
  o.finish();
  check_whole(m->state_dict(), "load_state_dict");
  auto report = m->load_state_dict(models::NamedTensorList(given.begin(), given.end()), strict);
  push_load_report(L, report);
  return 1;
}
// Methods that read no weights use peek_module: a model whose weights are still in their
// files stays so (check_module would load them whole, undoing ZeRO-3's sharded loading).
int module_train(lua_State* L) {
  peek_module(L, 1)->train(lua_isnoneornil(L, 2) ? true : lua_toboolean(L, 2) != 0);
  lua_settop(L, 1);
  return 1;
}
int module_eval(lua_State* L) {
  peek_module(L, 1)->eval();
  lua_settop(L, 1);
  return 1;
}
int module_to(lua_State* L) {
  ModulePtr m = check_module(L, 1);
  const std::string name = luaL_checkstring(L, 2);
  if (is_device_name(name)) m->to(parse_device(name));
  else m->to(parse_dtype(name));
  lua_settop(L, 1);
  return 1;
}
int module_float(lua_State* L) {
  check_module(L, 1)->to(at::kFloat);
  lua_settop(L, 1);
  return 1;
}
int module_double(lua_State* L) {
  check_module(L, 1)->to(at::kDouble);
  lua_settop(L, 1);
  return 1;
}
int module_num_parameters(lua_State* L) {
  lua_pushnumber(L, static_cast<double>(peek_module(L, 1)->num_parameters()));
  return 1;
}
int module_type(lua_State* L) {
  lua_pushstring(L, peek_module(L, 1)->type_name().c_str());
  return 1;
}
int module_append(lua_State* L) {
  ModulePtr m = peek_module(L, 1);
  ModulePtr item = peek_module(L, 2);
  if (auto* s = dynamic_cast<models::Sequential*>(m.get())) s->append(item);
  else if (auto* l = dynamic_cast<models::ModuleList*>(m.get())) l->append(item);
  else throw RecipeError(m->type_name() + " has no append (only Sequential and ModuleList)");
  lua_settop(L, 1);
  return 1;
}
int module_forward(lua_State* L) { return module_call(L); }

void repr(const Module& m, std::string& out, int indent) {
  out += m.type_name();
  if (auto* l = dynamic_cast<const models::Linear*>(&m))
    out += "(in_features=" + std::to_string(l->weight.size(1)) + ", out_features=" + std::to_string(l->weight.size(0)) +
           ", bias=" + (l->bias.defined() ? "True" : "False") + ")";
  else if (m.children().empty())
    out += "()";
  if (m.children().empty()) return;
  out += "(\n";
  for (const auto& [name, c] : m.children()) {
    out += std::string(indent + 2, ' ') + "(" + name + "): ";
    repr(*c, out, indent + 2);
    out += "\n";
  }
  out += std::string(indent, ' ') + ")";
}
int module_tostring(lua_State* L) {
  std::string s;
  repr(*peek_module(L, 1), s, 0);
  lua_pushstring(L, s.c_str());
  return 1;
}
int module_len(lua_State* L) {
  lua_pushnumber(L, static_cast<double>(peek_module(L, 1)->children().size()));
  return 1;
}

// m.name: methods, then children, parameters, buffers, Lua attributes; seq[i] → child "i".
int module_index(lua_State* L) {
  ModulePtr m = peek_module(L, 1);
  // PyTorch's m.training is a flag, read as `if self.training then` in ported forwards: a
  // method there would always be truthy.
  if (lua_type(L, 2) == LUA_TSTRING && std::string(lua_tostring(L, 2)) == "training") {
    lua_pushboolean(L, m->is_training());
    return 1;
  }
  lua_pushvalue(L, 2);
  lua_rawget(L, lua_upvalueindex(1));  // methods (each decides whether it needs the weights)
  if (!lua_isnil(L, -1)) return 1;
  lua_pop(L, 1);
  // A child, parameter or attribute hands out part of the model: its weights load now (a
  // child holds no record of its root's files).
  models::materialize(*m);
  std::string key;
  if (lua_type(L, 2) == LUA_TNUMBER) key = std::to_string(check_int(L, 2, "module index"));
  else if (lua_type(L, 2) == LUA_TSTRING) key = lua_tostring(L, 2);
  else return 0;
  if (auto c = m->child(key)) {
    push_module(L, c);
    return 1;
  }
  at::Tensor t = m->parameter(key);
  if (!t.defined()) t = m->buffer(key);
  if (t.defined()) {
    push_tensor(L, t);
    return 1;
  }
  if (auto* lm = dynamic_cast<LuaModule*>(m.get())) {
    lm->push_attrs(L);
    lua_getfield(L, -1, key.c_str());
    return 1;
  }
  lua_pushnil(L);
  return 1;
}

// m.name = value: a module becomes a child, a tensor replaces a parameter/buffer of that
// name, anything else is a Lua attribute (custom modules only).
int module_newindex(lua_State* L) {
  ModulePtr m = check_module(L, 1);
  const std::string key = luaL_checkstring(L, 2);
  if (key == "training")
    throw RecipeError("m.training is set by m:train([mode]) and m:eval() (which set the children's too), not assigned");
  if (ModulePtr c = test_module(L, 3)) {
    m->register_module(key, c);
    return 0;
  }
  if (at::Tensor* t = test_tensor(L, 3)) {
    if (m->parameter(key).defined()) m->register_parameter(key, *t, t->requires_grad());
    else if (m->buffer(key).defined()) m->register_buffer(key, *t);
    else if (t->requires_grad()) m->register_parameter(key, *t);
    else m->register_buffer(key, *t);
    return 0;
  }
  auto* lm = dynamic_cast<LuaModule*>(m.get());
  if (!lm) throw RecipeError(m->type_name() + " has no attribute '" + key + "' to set");
  lm->push_attrs(L);
  lua_pushvalue(L, 3);
  lua_setfield(L, -2, key.c_str());
  lua_pop(L, 1);
  return 0;
}

// --- constructors ---------------------------------------------------------------------
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

int nn_conv2d(lua_State* L) {
  Options o(L, 4, "nn.Conv2d");
  auto stride = pair_option(o, "stride", 1), padding = pair_option(o, "padding", 0), dilation = pair_option(o, "dilation", 1);
  const int64_t groups = o.integer("groups", 1);
  const bool bias = o.boolean("bias", true);
  o.finish();
  return ret(L, std::make_shared<models::Conv2d>(check_int(L, 1, "nn.Conv2d in_channels"), check_int(L, 2, "nn.Conv2d out_channels"),
                                                 pair_of(L, 3, "nn.Conv2d kernel_size"), stride, padding, dilation, groups, bias));
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

void push_module(lua_State* L, ModulePtr m) {
  void* mem = lua_newuserdata(L, sizeof(ModuleBox));
  new (mem) ModuleBox{std::move(m)};
  luaL_getmetatable(L, kModuleMeta);
  lua_setmetatable(L, -2);
}

ModulePtr test_module(lua_State* L, int idx) {
  void* p = lua_touserdata(L, idx);
  if (!p || !lua_getmetatable(L, idx)) return nullptr;
  luaL_getmetatable(L, kModuleMeta);
  const bool same = lua_rawequal(L, -1, -2);
  lua_pop(L, 2);
  return same ? static_cast<ModuleBox*>(p)->m : nullptr;
}

ModulePtr peek_module(lua_State* L, int idx) {
  ModulePtr m = test_module(L, idx);
  if (!m) throw RecipeError(std::string("expected a module, got ") + luaL_typename(L, idx));
  return m;
}

ModulePtr check_module(lua_State* L, int idx) {
  ModulePtr m = peek_module(L, idx);
  // Recipe code that touches a model whose weights are still in their files gets them all
  // (only the Trainer can load ZeRO-3 shards); no-op once loaded.
  models::materialize(*m);
  return m;
}

void register_module_type(lua_State* L) {
  luaL_newmetatable(L, kModuleMeta);
  set_functions(L, {{"__gc", module_gc},
                    {"__call", guarded<module_call>},
                    {"__newindex", guarded<module_newindex>},
                    {"__tostring", guarded<module_tostring>},
                    {"__len", guarded<module_len>}});
  lua_newtable(L);  // methods, the upvalue of __index
  set_functions(L, {{"forward", guarded<module_forward>},
                    {"parameters", guarded<module_parameters>},
                    {"named_parameters", guarded<module_named_parameters>},
                    {"named_buffers", guarded<module_named_buffers>},
                    {"state_dict", guarded<module_state_dict>},
                    {"load_state_dict", guarded<module_load_state_dict>},
                    {"train", guarded<module_train>},
                    {"eval", guarded<module_eval>},
                    {"to", guarded<module_to>},
                    {"float", guarded<module_float>},
                    {"double", guarded<module_double>},
                    {"num_parameters", guarded<module_num_parameters>},
                    {"type", guarded<module_type>},
                    {"append", guarded<module_append>},
                    {"generate", guarded<module_generate>}});
  lua_pushcclosure(L, guarded<module_index>, 1);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
}

void push_nn_module(lua_State* L) {
  lua_newtable(L);
  set_functions(L, {{"Linear", guarded<nn_linear>},       {"Embedding", guarded<nn_embedding>},
                    {"LayerNorm", guarded<nn_layer_norm>}, {"Dropout", guarded<nn_dropout>},
                    {"ReLU", guarded<nn_relu>},           {"GELU", guarded<nn_gelu>},
                    {"Tanh", guarded<nn_tanh>},           {"Sigmoid", guarded<nn_sigmoid>},
                    {"SiLU", guarded<nn_silu>},           {"Sequential", guarded<nn_sequential>},
                    {"ModuleList", guarded<nn_module_list>}, {"Conv2d", guarded<nn_conv2d>},
                    {"MaxPool2d", guarded<nn_max_pool2d>}, {"Flatten", guarded<nn_flatten>},
                    {"Module", guarded<nn_module>},       {"Parameter", guarded<nn_parameter>}});
}

}  // namespace runner::lua
