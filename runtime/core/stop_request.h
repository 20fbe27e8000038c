// A request to stop training at the next optimizer-step boundary with a checkpoint
// (preemption: SLURM and Kubernetes send SIGTERM, or a --signal of the user's choice such as
// SIGUSR1, some time before they kill the job). Set by the CLI's signal thread, read by the
// Trainer after every optimizer step, so the trainer never sees a signal.
#pragma once
#include <string>

namespace runner {

// The exit code of a run that a stop signal ended with a checkpoint: distinct from 0 (done),
// 1/2 (errors) and 128+N (killed), so a requeue loop can test it. 75 is EX_TEMPFAIL
// (sysexits.h): "a temporary failure; try again later" — resume with the same command.
constexpr int kPreemptedExitCode = 75;

void request_stop(const std::string& reason);  // e.g. "SIGTERM"
bool stop_requested();
std::string stop_reason();
void clear_stop_request();  // tests
// Whether a training loop is running that will act on a request (the Trainer sets it
// around its loop); outside one, a stop signal ends the process at once.
void set_stop_point_active(bool active);
bool stop_point_active();

}  // namespace runner
