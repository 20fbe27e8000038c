// Ctrl-C (SIGINT) during a run: one line that says where the last checkpoint is and how to
// resume, then exit code 130, instead of a silent exit (or, under mpiexec, the launcher's
// teardown noise). The signal is blocked in every thread and taken by one waiting thread, so
// the message is written outside a signal handler.
#pragma once
#include <string>

namespace runner::cli {

// Call first in main(), before any other thread exists (MPI, OpenMP, data workers).
void install_interrupt_handler();
// What the message names: the run's output folder and the command to resume it; `rank`:
// only rank 0 prints.
void set_interrupt_context(const std::string& output_dir, const std::string& resume_command, int rank);

}  // namespace runner::cli
