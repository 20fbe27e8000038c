#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/cli/command_line.h"
#include "runtime/core/errors.h"

using namespace runner;

namespace {
cli::CommandLine parse(std::vector<const char*> argv) {
  argv.insert(argv.begin(), "runner");
  return cli::parse_command_line(static_cast<int>(argv.size()), argv.data());
}
}  // namespace

TEST(CommandLine, RunWithOverridesAndRecipeOptions) {
  auto cl = parse({"r.lua", "--learning_rate", "0.1", "--do_predict", "--data", "x.txt", "--seed=7"});
  EXPECT_EQ(cl.command, "run");
  EXPECT_EQ(cl.recipe, "r.lua");
  ASSERT_EQ(cl.arg_overrides.size(), 3u);
  EXPECT_EQ(cl.arg_overrides[0], std::make_pair(std::string("learning_rate"), std::string("0.1")));
  EXPECT_EQ(cl.arg_overrides[1], std::make_pair(std::string("do_predict"), std::string("true")));
  EXPECT_EQ(cl.arg_overrides[2], std::make_pair(std::string("seed"), std::string("7")));
  EXPECT_EQ(cl.recipe_options.at("data"), "x.txt");
}

TEST(CommandLine, BooleanFlagTakesExplicitValue) {
  auto cl = parse({"r.lua", "--do_predict", "false", "--logging_first_step"});
  EXPECT_EQ(cl.arg_overrides[0].second, "false");
  EXPECT_EQ(cl.arg_overrides[1].second, "true");
}

TEST(CommandLine, Commands) {
  EXPECT_EQ(parse({"check", "r.lua"}).command, "check");
  EXPECT_EQ(parse({"args"}).command, "args");
  EXPECT_TRUE(parse({"args", "--markdown"}).markdown);
  EXPECT_EQ(parse({"--help"}).command, "help");
  EXPECT_EQ(parse({"--version"}).command, "version");
  EXPECT_EQ(parse({}).command, "help");
}

TEST(CommandLine, MalformedInputIsLocated) {
  try {
    parse({"r.lua", "--learning_rate"});
    FAIL();
  } catch (const ArgumentError& e) {
    EXPECT_EQ(e.where(), "command line:2");
    EXPECT_THAT(e.message(), ::testing::HasSubstr("--learning_rate needs a value"));
  }
  try {  // the next --name is never taken as a value
    parse({"r.lua", "--max_steps", "--logging_steps", "1"});
    FAIL();
  } catch (const ArgumentError& e) {
    EXPECT_THAT(e.message(), ::testing::HasSubstr("--max_steps needs a value"));
  }
  EXPECT_THROW(parse({"r.lua", "stray"}), ArgumentError);
  EXPECT_THROW(parse({"check"}), ArgumentError);
}

TEST(CommandLine, ABareUnknownNameIsLeftForTheRecipeToDeclareOrRefuse) {
  // --foo is checked against recipe.options{} once the recipe has loaded (unknown there:
  // "--foo: unknown argument", test_cli.py); it must not swallow --max_steps as its value.
  auto cl = parse({"r.lua", "--foo", "--max_steps", "3", "--verbose"});
  EXPECT_EQ(cl.bare_options, (std::set<std::string>{"foo", "verbose"}));
  EXPECT_EQ(cl.recipe_options.at("foo"), "true");
  ASSERT_EQ(cl.arg_overrides.size(), 1u);
  EXPECT_EQ(cl.arg_overrides[0], std::make_pair(std::string("max_steps"), std::string("3")));
  // a negative number is a value, not a name
  EXPECT_EQ(parse({"r.lua", "--shift", "-1"}).recipe_options.at("shift"), "-1");
}

TEST(CommandLine, TransformersV4NamesAreArguments) {
  auto cl = parse({"r.lua", "--no_cuda", "--max_steps", "3", "--evaluation_strategy", "steps", "--adafactor"});
  ASSERT_EQ(cl.arg_overrides.size(), 4u);
  EXPECT_EQ(cl.arg_overrides[0], std::make_pair(std::string("no_cuda"), std::string("true")));
  EXPECT_EQ(cl.arg_overrides[2], std::make_pair(std::string("evaluation_strategy"), std::string("steps")));
  EXPECT_EQ(cl.arg_overrides[3], std::make_pair(std::string("adafactor"), std::string("true")));
  EXPECT_TRUE(cl.recipe_options.empty());
}

TEST(CommandLine, HelpAnywhereOnTheLine) {
  EXPECT_EQ(parse({"r.lua", "--max_steps", "3", "--help"}).command, "help");
  EXPECT_EQ(parse({"check", "r.lua", "-h"}).command, "help");
  EXPECT_EQ(parse({"launch", "-n", "2", "--help"}).command, "help");
}
