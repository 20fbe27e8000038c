// runner: train, check or describe a Lua recipe. See DESIGN.md's CLI contract.
#include <cstdio>
#include <iostream>

#include <c10/util/Exception.h>

#include "runtime/cli/command_line.h"
#include "runtime/cli/commands.h"
#include "runtime/cli/interrupt.h"
#include "runtime/cli/version.h"
#include "runtime/core/errors.h"
#include "runtime/dist/fault_monitor.h"
#include "runtime/dist/world.h"
#include "runtime/io/dir_lock.h"

namespace {

// One line on stderr; under several ranks it names the rank and then takes the whole
// world down, so no peer is left waiting in a collective for a rank that is gone.
int fail(const std::string& message, int code) {
  std::string line = message;
  for (auto& c : line)
    if (c == '\n') c = ' ';
  const auto& w = runner::dist::world();
  if (line.empty()) {
    // a process that stays quiet because another one says it (world.cpp)
  } else if (w.size > 1) {
    // Once training has started: where this rank was, and its flight record (docs/distributed.md).
    runner::dist::leave_launch_folder();  // this line explains it: runner launch adds nothing
    std::string where = runner::dist::fault_context();
    if (!where.empty()) {
      const std::string record = runner::dist::dump_own_flight_record(line);
      where = " (rank " + std::to_string(w.rank) + " " + where + (record.empty() ? "" : "; flight record " + record) + ")";
    }
    std::fprintf(stderr, "runner: error: [rank %d] %s%s\n", w.rank, line.c_str(), where.c_str());
  } else {
    std::fprintf(stderr, "runner: error: %s\n", line.c_str());
  }
  std::fflush(stderr);
  runner::io::release_dir_locks();  // MPI_Abort runs no destructors
  runner::dist::abort_world(code);
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace runner;
  cli::install_interrupt_handler();  // before MPI and every other thread
  try {
    // `runner launch` starts the ranks and is none of them: torchrun's variables a batch
    // script exported (WORLD_SIZE) are not its own, and it cleans them for its ranks.
    if (argc < 2 || std::string(argv[1]) != "launch") dist::init_world(&argc, &argv);
    const cli::CommandLine cl = cli::parse_command_line(argc, argv);
    if (cl.command == "help") {
      std::cout << cli::usage();
      dist::finalize_world();
      return 0;
    }
    if (cl.command == "version") {
      std::cout << cli::version_report(RUNNER_VERSION);
      dist::finalize_world();
      return 0;
    }
    if (cl.command == "args") {
      const int rc = cli::print_args(cl.markdown);
      dist::finalize_world();
      return rc;
    }
    if (cl.command == "launch") return cli::launch(cl);  // MPI is not initialised here: no launcher
    if (cl.command == "generate" || cl.command == "prepare-data" || cl.command == "merge-adapters") {
      const int rc = cl.command == "generate" ? cli::generate(cl) : cl.command == "merge-adapters" ? cli::merge_adapters(cl) : cli::prepare_data(cl);
      dist::finalize_world();
      return rc;
    }
    if (cl.command == "consolidate") {
      const int rc = cli::consolidate(cl);
      dist::finalize_world();
      return rc;
    }
    const int rc = cl.command == "search" ? cli::search(cl) : cli::run_recipe(cl);
    dist::finalize_world();  // MPI wants every rank to finalize after its last collective
    return rc;
  } catch (const cli::SetupFailed& f) {
    if (!f.message.empty()) {
      std::string line = f.message;
      for (auto& c : line)
        if (c == '\n') c = ' ';
      if (f.name_rank) std::fprintf(stderr, "runner: error: [rank %d] %s\n", dist::world().rank, line.c_str());
      else std::fprintf(stderr, "runner: error: %s\n", line.c_str());
      std::fflush(stderr);
    }
    dist::finalize_world();  // every rank stopped at the same point: no abort, no launcher noise
    return f.code;
  } catch (const Error& e) {
    return fail(e.what(), e.exit_code());
  } catch (const c10::Error& e) {
    // ATen rejects what the recipe asked for (shapes, dtypes): the user's to fix.
    return fail(e.what_without_backtrace(), 2);
  } catch (const std::exception& e) {
    return fail(std::string("internal error: ") + e.what(), 1);
  }
}
