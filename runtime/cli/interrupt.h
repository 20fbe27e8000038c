// Signals during a run. Ctrl-C (SIGINT): one line that says where the last checkpoint is and
// how to resume, then exit code 130, instead of a silent exit (or, under mpiexec, the
// launcher's teardown noise). SIGTERM / SIGUSR1 (preemption) during training, with
// enable_jit_checkpoint: the step finishes, a checkpoint is saved (stop_request.h) and the run
// exits 75 (kPreemptedExitCode); a second one, or one outside training, exits at once
// (143 / 138) with the same line; a copy within 2 s of the first is the same signal delivered
// twice (by the scheduler and by mpiexec) and changes nothing. Lock files of output folders
// go before any exit.
// The signals are blocked in every thread and taken by one waiting thread, so messages are
// written outside a signal handler.
#pragma once
#include <sys/types.h>

#include <string>

namespace runner::cli {

// Call first in main(), before any other thread exists (MPI, OpenMP, data workers).
void install_interrupt_handler();
// What the message names: the run's output folder and the command to resume it; `rank`:
// only rank 0 prints.
void set_interrupt_context(const std::string& output_dir, const std::string& resume_command, int rank,
                           bool checkpoint_on_stop = false);
// "; the last checkpoint is ...: resume with `...`" for the run's output folder.
std::string resume_hint();
// runner launch: pass SIGTERM, SIGUSR1 and SIGINT on to `pid` (mpiexec) instead of acting on them.
void forward_signals_to(pid_t pid);
// runner launch: whether a stop signal was passed on (the job was stopped, not failed).
bool stop_signal_forwarded();

}  // namespace runner::cli
