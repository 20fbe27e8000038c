// A module whose forward is a Lua function: nn.Module{ fc = nn.Linear(4, 2), forward = function(self, x) ... end }.
// As a top-level model its forward receives the batch table; inside a container it
// receives a tensor. Children and parameters are ordinary Module children, so state
// dicts, flat buffers and checkpoints treat it like any other module.
#pragma once
#include <string>

#include "bindings/lua/lua_common.h"
#include "runtime/models/module.h"

namespace runner::lua {

// Calls the function and arguments above `base` with lua_pcall. On error the message is
// popped and thrown as LuaError; the stack is then back at `base`.
void pcall_or_throw(lua_State* L, int nargs, int nresults);

class LuaModule : public models::Module {
 public:
  // attrs_ref: registry reference to the module's attribute table (holds `forward`).
  LuaModule(lua_State* L, int attrs_ref, std::string name);
  ~LuaModule() override;
  at::Tensor forward_impl(const at::Tensor& x) override;
  models::TensorMap forward_batch_impl(const models::TensorMap& batch) override;
  bool takes_batch() const override { return true; }
  bool forward_runs_host_code() const override { return true; }
  void push_attrs(lua_State* L) const;  // pushes the attribute table

 private:
  lua_State* L_;
  int attrs_ref_;
};

// The Lua state is closed before static destructors run; modules outliving it must not
// touch it. LuaState flips this at close.
void set_lua_alive(lua_State* L, bool alive);
bool lua_alive(lua_State* L);

// Module userdata.
constexpr const char* kModuleMeta = "runner.Module";
void push_module(lua_State* L, std::shared_ptr<models::Module> m);
// check_module loads weights still in their files first (parameter_store.h); peek_module
// does not (models.lora adapts a model without reading its weights).
std::shared_ptr<models::Module> check_module(lua_State* L, int idx);
std::shared_ptr<models::Module> peek_module(lua_State* L, int idx);
std::shared_ptr<models::Module> test_module(lua_State* L, int idx);  // nullptr if not a module

// {missing_keys = {...}, unexpected_keys = {...}}, what load_state_dict returns in PyTorch.
void push_load_report(lua_State* L, const models::Module::LoadReport& report);

// model:generate(...) (generate.cpp), and the options it reads: transformers' generate()
// keywords, with eos/pad ids defaulting to the model's config.
int module_generate(lua_State* L);

// Batch ↔ Lua table of tensors.
void push_tensor_map(lua_State* L, const models::TensorMap& m);
models::TensorMap to_tensor_map(lua_State* L, int idx, const std::string& what);

}  // namespace runner::lua
