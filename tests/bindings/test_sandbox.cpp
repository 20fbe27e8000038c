#include <gmock/gmock.h>

#include "tests/bindings/lua_fixture.h"

using runner::testing::LuaFixture;
using ::testing::HasSubstr;
using Sandbox = LuaFixture;

TEST_F(Sandbox, AssigningAGlobalIsAnErrorAtItsLine) {
  EXPECT_THAT(error_of("local a = 1\nb = 2\nreturn a"), HasSubstr(".lua:2: assignment to undeclared global 'b' (use local)"));
}

TEST_F(Sandbox, ReadingAnUndefinedGlobalIsAnError) {
  EXPECT_THAT(error_of("return lerning_rate"), HasSubstr(".lua:1: undefined global 'lerning_rate'"));
}

TEST_F(Sandbox, PredefinedModulesAndSafeLibraries) {
  EXPECT_EQ(number("return torch.zeros(2):numel() + #nn + (F.relu and 1 or 0) + math.floor(2.5) + #string.format('%d', 12)"), 2 + 0 + 1 + 2 + 2);
  EXPECT_EQ(number("local t = require 'runner.torch' return t == torch and 1 or 0"), 1);
  EXPECT_THAT(error_of("return io.open('x')"), HasSubstr("'io' is not available to recipes"));
  EXPECT_THAT(error_of("return require('ffi')"), HasSubstr("module 'ffi' is not available to recipes"));
  EXPECT_THAT(error_of("return os.execute('true')"), HasSubstr("os.execute is not available to recipes"));
}

TEST_F(Sandbox, RecipesDoNotLeakIntoEachOther) {
  run("local x = 1 return x");
  lua_pop(L(), 1);
  EXPECT_THAT(error_of("return x"), HasSubstr("undefined global 'x'"));
}

TEST_F(Sandbox, SyntaxErrorsCarryFileAndLine) {
  const std::string msg = error_of("local a = 1\nlocal b = = 2\n");
  EXPECT_THAT(msg, HasSubstr(".lua:2:"));
  EXPECT_THAT(msg, HasSubstr("unexpected symbol"));
}

TEST_F(Sandbox, RequireResolvesRelativeToTheRecipeThenLib) {
  write("helpers/scale.lua", "local M = {} function M.twice(v) return 2 * v end return M");
  EXPECT_EQ(number("local s = require 'helpers.scale' return s.twice(21)"), 42);
  // modules are cached: the same table both times
  EXPECT_EQ(number("return (require 'helpers.scale' == require 'helpers.scale') and 1 or 0"), 1);
  // recipes/lib from the source tree is on the path
  EXPECT_EQ(number("local lib = require 'common' return type(lib) == 'table' and 1 or 0"), 1);
  EXPECT_THAT(error_of("return require 'no.such.module'"), HasSubstr("module 'no.such.module' not found (looked for"));
  write("broken.lua", "x = 1");
  EXPECT_THAT(error_of("return require 'broken'"), HasSubstr("broken.lua:1: assignment to undeclared global 'x'"));
}

TEST_F(Sandbox, ExtendDeepMerges) {
  write("base.lua", "return { args = { learning_rate = 0.1, num_train_epochs = 3 }, tags = {'a', 'b'} }");
  run("local recipe = require 'runner.recipe'\n"
      "local r = recipe.extend(require 'base', { args = { learning_rate = 0.5 }, tags = {'c'} })\n"
      "return r.args.learning_rate, r.args.num_train_epochs, #r.tags, (require 'base').args.learning_rate");
  EXPECT_EQ(lua_tonumber(L(), -4), 0.5);
  EXPECT_EQ(lua_tonumber(L(), -3), 3);  // kept from base
  EXPECT_EQ(lua_tonumber(L(), -2), 1);  // lists are replaced, not merged
  EXPECT_EQ(lua_tonumber(L(), -1), 0.1);  // base itself is untouched
  lua_pop(L(), 4);
}

TEST_F(Sandbox, RecipePathIsRelativeToTheRecipe) {
  run("return (require 'runner.recipe').path('data.jsonl')");
  EXPECT_EQ(std::string(lua_tostring(L(), -1)), (dir_ / "data.jsonl").string());
  lua_pop(L(), 1);
}

class SandboxWithOptions : public LuaFixture {
 protected:
  void SetUp() override {
    options_ = {{"data", "other.txt"}, {"block_size", "128"}, {"verbose", "true"}};
    LuaFixture::SetUp();
  }
};

TEST_F(SandboxWithOptions, RecipeOptionsTakeCommandLineValuesByType) {
  run("local o = (require 'runner.recipe').options{ data = 'input.txt', block_size = 64, verbose = false, layers = 4 }\n"
      "return o.data, o.block_size, o.verbose, o.layers");
  EXPECT_STREQ(lua_tostring(L(), -4), "other.txt");
  EXPECT_EQ(lua_tonumber(L(), -3), 128);
  EXPECT_TRUE(lua_toboolean(L(), -2));
  EXPECT_EQ(lua_tonumber(L(), -1), 4);
  lua_pop(L(), 4);
  EXPECT_TRUE(lua_->undeclared_options().empty());
  EXPECT_THAT(error_of("return (require 'runner.recipe').options{ learning_rate = 1 }"), HasSubstr("'learning_rate' is a training argument"));
}

class SandboxWithBareOptions : public LuaFixture {
 protected:
  void SetUp() override {
    options_ = {{"verbose", "true"}, {"text", "true"}};
    bare_options_ = {"verbose", "text"};  // runner r.lua --verbose --text
    LuaFixture::SetUp();
  }
};

TEST_F(SandboxWithBareOptions, ABareNameSetsABooleanOptionAndIsRefusedForOthers) {
  run("return (require 'runner.recipe').options{ verbose = false }.verbose");
  EXPECT_TRUE(lua_toboolean(L(), -1));
  lua_pop(L(), 1);
  EXPECT_THAT(error_of("return (require 'runner.recipe').options{ text = 'input.txt' }"),
              HasSubstr("--text needs a value (a string, default input.txt)"));
}
