// Test helper for test_lua_hooks*.cpp: recipes written to temp files and trained the way
// the CLI does it. Recipes report what their hooks saw through `require "probe"`, a module
// table that the test reads back (modules are loaded once per Lua state), and share data
// helpers through `require "common"`.
#pragma once
#include <gmock/gmock.h>

#include <algorithm>
#include <map>

#include "bindings/lua/recipe.h"
#include "tests/bindings/lua_fixture.h"

namespace runner::testing {

constexpr const char* kCommonLua = R"(local data = require "runner.data"
local M = {}
-- n examples of 4 features and 3 classes
function M.classification(n, seed)
  torch.manual_seed(seed)
  local x, y = torch.randn(n, 4), torch.randint(0, 3, {n})
  return x, y, data.tensors{ x = x, labels = y }
end
function M.ce(model, inputs)
  local logits = model(inputs.x)
  return F.cross_entropy(logits, inputs.labels), { logits = logits }
end
return M
)";

class HooksFixture : public LuaFixture {
 protected:
  void SetUp() override {
    LuaFixture::SetUp();
    write("probe.lua", "return {}\n");
    write("common.lua", kCommonLua);
  }

  // Loads `code` as <name>.lua; every OUT becomes a fresh output folder (a Lua string).
  lua::Recipe load(const std::string& name, std::string code) {
    const std::string out = "'" + (dir_ / ("out_" + name)).string() + "'";
    for (size_t p = code.find("OUT"); p != std::string::npos; p = code.find("OUT", p + out.size())) code.replace(p, 3, out);
    return lua::load_recipe(*lua_, write(name + ".lua", code));
  }
  std::unique_ptr<train::Trainer> make_trainer(lua::Recipe& r) {
    r.args.finalize();
    train::TrainerOptions o;
    o.collator = r.collator;
    o.input_name = r.input_name;
    return std::make_unique<train::Trainer>(r.args, r.model, r.datasets, r.hooks, r.callbacks, o);
  }
  // train() and evaluate(), checking that each leaves the Lua stack as it found it.
  train::TrainOutput train(train::Trainer& t) {
    const int top = lua_gettop(L());
    auto out = t.train();
    EXPECT_EQ(lua_gettop(L()), top) << "train() unbalanced the Lua stack";
    return out;
  }
  nlohmann::json evaluate(train::Trainer& t) {
    const int top = lua_gettop(L());
    auto out = t.evaluate();
    EXPECT_EQ(lua_gettop(L()), top) << "evaluate() unbalanced the Lua stack";
    return out;
  }
  // A Lua expression over P = require "probe" (P.calls, #P.flags), as JSON or as a tensor.
  nlohmann::json probe(const std::string& expr) {
    run("local P = require 'probe' return " + expr);
    nlohmann::json j = lua::to_json(L(), -1, expr);
    lua_pop(L(), 1);
    return j;
  }
  at::Tensor probe_tensor(const std::string& expr) { return tensor("local P = require 'probe' return " + expr); }


 public:
  static std::map<std::string, at::Tensor> params(const models::Module& m) {
    std::map<std::string, at::Tensor> out;
    for (const auto& [name, t] : m.named_parameters()) out[name] = t.detach().clone();
    return out;
  }
  // 1-based line of the first occurrence of `needle` in `code`.
  static int line_of(const std::string& code, const std::string& needle) {
    const auto pos = code.find(needle);
    EXPECT_NE(pos, std::string::npos) << needle;
    return 1 + static_cast<int>(std::count(code.begin(), code.begin() + static_cast<std::ptrdiff_t>(pos), '\n'));
  }
  // max |a - b| relative to max |a|.
  static double rel_diff(const at::Tensor& a, const at::Tensor& b) {
    return (a.to(at::kDouble) - b.to(at::kDouble)).abs().max().item<double>() / a.abs().max().item<double>();
  }
  static bool same(const at::Tensor& a, const at::Tensor& b, double tol = 1e-5) {
    return a.sizes() == b.sizes() && at::allclose(a.to(at::kDouble), b.to(at::kDouble), tol, tol);
  }
};

}  // namespace runner::testing
