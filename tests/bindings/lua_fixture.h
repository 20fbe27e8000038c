// Test helper: one LuaState per test, and snippets run as recipe files in a temp folder.
#pragma once
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>

#include "bindings/lua/lua_common.h"
#include "bindings/lua/lua_state.h"
#include "runtime/core/errors.h"

namespace runner::testing {

class LuaFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("runner_lua_" + std::to_string(::getpid()) + "_" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    lua_ = std::make_unique<lua::LuaState>(options_, lua::default_lib_dirs(), bare_options_);
  }
  void TearDown() override { lua_.reset(); }

  // Writes `code` to a file and runs it like a recipe; its return value is left on the stack.
  std::string write(const std::string& name, const std::string& code) {
    const auto path = (dir_ / name).string();
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path) << code;
    return path;
  }
  void run(const std::string& code) { lua_->run_recipe(write("snippet" + std::to_string(++n_) + ".lua", code), LUA_MULTRET); }
  // Runs `code` and returns its error message ("" if it succeeded).
  std::string error_of(const std::string& code) {
    const int top = lua_gettop(L());
    try {
      run(code);
    } catch (const Error& e) {
      lua_settop(L(), top);
      return e.what();
    }
    lua_settop(L(), top);
    return "";
  }
  double number(const std::string& code) {
    run(code);
    const double v = lua_tonumber(L(), -1);
    lua_pop(L(), 1);
    return v;
  }
  at::Tensor tensor(const std::string& code) {
    run(code);
    at::Tensor* t = lua::test_tensor(L(), -1);
    EXPECT_NE(t, nullptr) << code;
    at::Tensor out = t ? *t : at::Tensor();
    lua_pop(L(), 1);
    return out;
  }
  lua_State* L() { return lua_->get(); }

  std::map<std::string, std::string> options_;
  std::set<std::string> bare_options_;
  std::unique_ptr<lua::LuaState> lua_;
  std::filesystem::path dir_;
  int n_ = 0;
};

}  // namespace runner::testing
