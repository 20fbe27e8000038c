// A request to stop training at the next optimizer-step boundary with a checkpoint
// (preemption: SLURM and Kubernetes send SIGTERM, or a --signal of the user's choice such as
// SIGUSR1, some time before they kill the job). Set by the CLI's signal thread, read by the
// Trainer after every optimizer step, so the trainer never sees a signal.
#pragma once
#include <string>

namespace runner {

void request_stop(const std::string& reason);  // e.g. "SIGTERM"
bool stop_requested();
std::string stop_reason();
void clear_stop_request();  // tests
// Whether a training loop is running that will act on a request (the Trainer sets it
// around its loop); outside one, a stop signal ends the process at once.
void set_stop_point_active(bool active);
bool stop_point_active();

}  // namespace runner
