// Recipes make tensors on the host (a prompt, a sampler's context) while the Trainer may have
// moved the model to a GPU: calling a module from Lua moves host inputs to the device of its
// weights. Without a GPU here, a module whose weights are on PyTorch's meta device stands in,
// and records the device its forward was given (ATen itself mixes meta and host tensors
// freely, so only the recorded device tells the two behaviours apart). The GPU side of this
// (the shipped recipes unchanged on cuda:0) is in tests/integration/test_gpu.py.
#include <gtest/gtest.h>

#include "bindings/lua/lua_module.h"
#include "runtime/models/module.h"
#include "tests/bindings/lua_fixture.h"

namespace runner::testing {
namespace {

// Weights on the meta device; forward returns its input and remembers where it was.
class DeviceRecorder : public models::Module {
 public:
  DeviceRecorder() : Module("DeviceRecorder") { register_parameter("weight", at::empty({2}, at::TensorOptions().device(at::kMeta))); }
  at::Tensor forward_impl(const at::Tensor& x) override {
    seen.push_back(x.device());
    return x;
  }
  models::TensorMap forward_batch_impl(const models::TensorMap& batch) override {
    for (const auto& [name, t] : batch) seen.push_back(t.device());
    return batch;
  }
  std::vector<at::Device> seen;
};

using DevicePlacement = LuaFixture;

TEST_F(DevicePlacement, CallingAModuleMovesHostInputsToItsWeights) {
  auto recorder = std::make_shared<DeviceRecorder>();
  // m(x): a tensor the recipe made on the host.
  lua::push_module(L(), recorder);
  lua::push_tensor(L(), at::randn({4, 2}));
  ASSERT_EQ(lua_pcall(L(), 1, 1, 0), 0) << lua_tostring(L(), -1);
  lua_pop(L(), 1);
  // m{...}: a batch table of host tensors.
  lua::push_module(L(), recorder);
  lua_createtable(L(), 0, 2);
  lua::push_tensor(L(), at::randn({4, 2}));
  lua_setfield(L(), -2, "x");
  lua::push_tensor(L(), at::arange(4));
  lua_setfield(L(), -2, "labels");
  ASSERT_EQ(lua_pcall(L(), 1, 1, 0), 0) << lua_tostring(L(), -1);
  lua_pop(L(), 1);
  ASSERT_EQ(recorder->seen.size(), 3u);
  for (const at::Device& d : recorder->seen) EXPECT_EQ(d, at::Device(at::kMeta)) << "a host tensor reached the forward";
}

TEST_F(DevicePlacement, HostWeightsTakeHostInputsAsTheyAre) {
  run("return nn.Linear(2, 3)");
  ASSERT_EQ(lua::check_module(L(), -1)->device(), at::Device(at::kCPU));
  lua::push_tensor(L(), at::randn({4, 2}));
  ASSERT_EQ(lua_pcall(L(), 1, 1, 0), 0) << lua_tostring(L(), -1);
  at::Tensor* out = lua::test_tensor(L(), -1);
  ASSERT_NE(out, nullptr);
  EXPECT_TRUE(out->is_cpu());
  lua_pop(L(), 1);
}

}  // namespace
}  // namespace runner::testing
