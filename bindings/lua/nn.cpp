// Module userdata, PyTorch's nn.Module methods in Lua: m(x), m:forward(x), m.weight, m.fc1,
// seq[0] (container indices are 0-based, matching their state-dict names "0.weight").
// The layer constructors (require "runner.nn") are in nn_layers.cpp.
#include <algorithm>
#include <set>

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
// An iterator over (name, value) pairs, pushed with `push`.
template <class List, class Push>
int push_pairs_iterator(lua_State* L, const List& list, Push push) {
  lua_createtable(L, static_cast<int>(2 * list.size()), 0);
  for (size_t i = 0; i < list.size(); ++i) {
    lua_pushstring(L, list[i].first.c_str());
    lua_rawseti(L, -2, static_cast<int>(2 * i + 1));
    push(L, list[i].second);
    lua_rawseti(L, -2, static_cast<int>(2 * i + 2));
  }
  lua_pushnumber(L, 0);
  lua_pushcclosure(L, named_iter, 2);
  return 1;
}
int push_named_iterator(lua_State* L, const models::NamedTensorList& list) {
  return push_pairs_iterator(L, list, [](lua_State* S, const at::Tensor& t) { push_tensor(S, t); });
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
// PyTorch's module tree walks: for name, m in model:named_modules() do ... end ("" is the
// model itself; a module reachable twice is listed once, under its first name).
using NamedModules = std::vector<std::pair<std::string, ModulePtr>>;
void collect_modules(const ModulePtr& m, const std::string& prefix, NamedModules& out, std::set<const Module*>& seen) {
  if (!seen.insert(m.get()).second) return;
  out.emplace_back(prefix, m);
  for (const auto& [name, c] : m->children()) collect_modules(c, prefix.empty() ? name : prefix + "." + name, out, seen);
}
int push_module_iterator(lua_State* L, const NamedModules& list) {
  return push_pairs_iterator(L, list, [](lua_State* S, const ModulePtr& m) { push_module(S, m); });
}
int push_module_list(lua_State* L, const NamedModules& list) {
  lua_createtable(L, static_cast<int>(list.size()), 0);
  for (size_t i = 0; i < list.size(); ++i) {
    push_module(L, list[i].second);
    lua_rawseti(L, -2, static_cast<int>(i + 1));
  }
  return 1;
}
NamedModules all_modules(lua_State* L) {
  NamedModules out;
  std::set<const Module*> seen;
  collect_modules(peek_module(L, 1), "", out, seen);
  return out;
}
int module_named_modules(lua_State* L) { return push_module_iterator(L, all_modules(L)); }
int module_modules(lua_State* L) { return push_module_list(L, all_modules(L)); }
int module_named_children(lua_State* L) { return push_module_iterator(L, peek_module(L, 1)->children()); }
int module_children(lua_State* L) { return push_module_list(L, peek_module(L, 1)->children()); }
// m:apply(fn): fn(child) for every module below, children first, then fn(m): PyTorch's order,
// what custom weight initialisation relies on (a module held twice is visited twice there too).
void apply_to(lua_State* L, const ModulePtr& m, std::set<const Module*>& path) {
  if (!path.insert(m.get()).second) throw RecipeError("apply: " + m->type_name() + " contains itself");
  for (const auto& [name, c] : m->children()) apply_to(L, c, path);
  path.erase(m.get());
  lua_pushvalue(L, 2);
  push_module(L, m);
  pcall_or_throw(L, 1, 0);
}
int module_apply(lua_State* L) {
  ModulePtr m = check_module(L, 1);
  luaL_checktype(L, 2, LUA_TFUNCTION);
  std::set<const Module*> path;
  apply_to(L, m, path);
  lua_settop(L, 1);
  return 1;
}
int module_requires_grad_(lua_State* L) {
  const bool flag = lua_isnoneornil(L, 2) || lua_toboolean(L, 2) != 0;
  for (auto& p : check_module(L, 1)->parameters()) p.requires_grad_(flag);
  lua_settop(L, 1);
  return 1;
}
int module_zero_grad(lua_State* L) {  // set_to_none, PyTorch's default
  for (auto& p : check_module(L, 1)->parameters()) p.mutable_grad().reset();
  lua_settop(L, 1);
  return 1;
}
int module_to_device(lua_State* L, const char* device) {
  check_module(L, 1)->to(parse_device(device));
  lua_settop(L, 1);
  return 1;
}
int module_cpu(lua_State* L) { return module_to_device(L, "cpu"); }
int module_cuda(lua_State* L) { return module_to_device(L, "cuda"); }
int module_half(lua_State* L) {
  check_module(L, 1)->to(at::kHalf);
  lua_settop(L, 1);
  return 1;
}
int module_bfloat16(lua_State* L) {
  check_module(L, 1)->to(at::kBFloat16);
  lua_settop(L, 1);
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
                    {"half", guarded<module_half>},
                    {"bfloat16", guarded<module_bfloat16>},
                    {"cpu", guarded<module_cpu>},
                    {"cuda", guarded<module_cuda>},
                    {"children", guarded<module_children>},
                    {"named_children", guarded<module_named_children>},
                    {"modules", guarded<module_modules>},
                    {"named_modules", guarded<module_named_modules>},
                    {"apply", guarded<module_apply>},
                    {"requires_grad_", guarded<module_requires_grad_>},
                    {"zero_grad", guarded<module_zero_grad>},
                    {"num_parameters", guarded<module_num_parameters>},
                    {"type", guarded<module_type>},
                    {"append", guarded<module_append>},
                    {"generate", guarded<module_generate>}});
  lua_pushcclosure(L, guarded<module_index>, 1);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
}

}  // namespace runner::lua
