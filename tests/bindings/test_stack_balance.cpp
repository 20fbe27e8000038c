// Every call from C++ into Lua (hooks, callbacks, Lua-defined forwards) leaves the Lua
// stack as it found it, over many steps, including when the Lua side fails.
#include <gmock/gmock.h>

#include "bindings/lua/lua_hooks.h"
#include "bindings/lua/lua_module.h"
#include "bindings/lua/recipe.h"
#include "runtime/models/layers.h"
#include "tests/bindings/lua_fixture.h"

using runner::testing::LuaFixture;
using StackBalance = LuaFixture;

namespace {
const char* kRecipe = R"(local data = require "runner.data"
local seen = 0
local ds = data.tensors{ x = torch.randn(16, 2), labels = torch.randn(16, 1) }
local Net = nn.Module{
  name = "Net", fc = nn.Linear(2, 1),
  forward = function(self, batch) return { logits = self.fc(batch.x) } end,
}
return {
  args = { max_steps = 6, per_device_train_batch_size = 2, gradient_accumulation_steps = 2, logging_steps = 1,
           save_strategy = "no", output_dir = OUT },
  datasets = { train = ds, eval = ds },
  model = Net,
  compute_loss = function(model, inputs, ctx)
    local out = model(inputs)
    return F.mse_loss(out.logits, inputs.labels), out
  end,
  callbacks = { { on_step_end = function(args, state, control) seen = seen + 1 end,
                  on_log = function(args, state, control, logs) return control end } },
})";
}  // namespace

TEST_F(StackBalance, TrainingWithLuaHooksCallbacksAndForward) {
  std::string code = kRecipe;
  code.replace(code.find("OUT"), 3, "'" + (dir_ / "out").string() + "'");
  auto recipe = runner::lua::load_recipe(*lua_, write("balance.lua", code));
  recipe.args.finalize();
  const int top = lua_gettop(L());
  runner::train::Trainer trainer(recipe.args, recipe.model, recipe.datasets, recipe.hooks, recipe.callbacks);
  trainer.train();
  trainer.evaluate();
  EXPECT_EQ(lua_gettop(L()), top);
}

TEST_F(StackBalance, DirectHookCallsAndFailures) {
  run("return { compute_loss = function(model, inputs, ctx) if inputs.fail then error('boom') end "
      "return model(inputs.x):sum(), { logits = inputs.x } end }");
  runner::lua::LuaHooks hooks(L(), -1, "test");
  lua_pop(L(), 1);
  auto model = std::make_shared<runner::models::Linear>(2, 1);
  const int top = lua_gettop(L());
  runner::train::LossContext ctx;
  for (int i = 0; i < 100; ++i) {
    auto r = hooks.compute_loss(*model, {{"x", at::randn({3, 2})}}, ctx);
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(lua_gettop(L()), top);
    EXPECT_THROW(hooks.compute_loss(*model, {{"x", at::randn({3, 2})}, {"fail", at::ones({1})}}, ctx), runner::HookError);
    EXPECT_EQ(lua_gettop(L()), top);
  }
}

TEST_F(StackBalance, BindingFunctionsReturnTheDocumentedNumberOfResults) {
  // select('#', f(...)) counts results: a binding that leaks stack slots would return more.
  run("local t = torch.tensor{{1.5, 2.5}} local m = nn.Linear(2, 2) return "
      "select('#', t:sum()), select('#', t:max(1)), select('#', t:size()), select('#', m(t)), "
      "select('#', t:add_(1)), select('#', t:requires_grad_()), select('#', torch.manual_seed(1)), "
      "select('#', m:parameters()), select('#', F.relu(t))");
  const int want[] = {1, 2, 1, 1, 1, 1, 0, 1, 1};
  for (int i = 0; i < 9; ++i) EXPECT_EQ(lua_tonumber(L(), -9 + i), want[i]) << "result " << i;
  lua_pop(L(), 9);
}
