// runner: train, check or describe a Lua recipe. See DESIGN.md's CLI contract.
#include <cstdio>
#include <iostream>

#include <c10/util/Exception.h>

#include "runtime/cli/command_line.h"
#include "runtime/cli/commands.h"
#include "runtime/core/errors.h"

namespace {

int fail(const std::string& message, int code) {
  std::string line = message;
  for (auto& c : line)
    if (c == '\n') c = ' ';
  std::fprintf(stderr, "runner: error: %s\n", line.c_str());
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace runner;
  try {
    const cli::CommandLine cl = cli::parse_command_line(argc, argv);
    if (cl.command == "help") {
      std::cout << cli::usage();
      return 0;
    }
    if (cl.command == "version") {
      std::cout << "runner " << RUNNER_VERSION << "\n";
      return 0;
    }
    if (cl.command == "args") return cli::print_args(cl.markdown);
    return cli::run_recipe(cl);
  } catch (const Error& e) {
    return fail(e.what(), e.exit_code());
  } catch (const c10::Error& e) {
    // ATen rejects what the recipe asked for (shapes, dtypes): the user's to fix.
    return fail(e.what_without_backtrace(), 2);
  } catch (const std::exception& e) {
    return fail(std::string("internal error: ") + e.what(), 1);
  }
}
