// Hangs and rank faults explain themselves: a side channel of heartbeats (UDP datagrams,
// addresses exchanged by one MPI_Allgather at start) that does not depend on the collective
// a rank may be stuck in. Every rank sends rank 0 what it is doing (step, phase, the
// collective it waits in, its last collective) every fault_timeout / 10 s; rank 0 answers
// every rank. Rank 0 stops the job, naming the rank, step, phase and collective, when
//   - a rank fell silent for fault_timeout (killed, SIGSTOPped, frozen),
//   - a rank has waited fault_timeout in a collective while a peer
//       * runs recipe code (a hook or callback) for longer than that,
//       * waits in another collective (a different op or sequence number), or
//       * has left training (finished, or returned early);
// a peer busy in runner's own work (a long step, a save, an evaluation) is not a fault:
// ddp_timeout bounds that. Before exiting every rank writes its flight record
// (flight_recorder.h) to output_dir/flight_record/. A rank other than 0 that stops hearing
// rank 0 says so itself.
#pragma once
#include <string>

namespace runner::dist {

// Seconds (0: no monitor). Set before world_communicator(); runner's fault_timeout argument.
void set_fault_timeout(double seconds);
double fault_timeout();
// Called (once, from the monitor's thread) right before a fault ends the process: the CLI
// releases the output folder's lock there.
void set_fault_exit_hook(void (*hook)());

// `runner launch` (on its own node): each rank keeps its latest flight record in `folder`
// (rank-K.json, rewritten with every heartbeat) so that the launcher can name a rank that
// died without a word (SIGKILL: MPICH's mpiexec then kills the others at once). A rank that
// ends normally or reports its own fault removes its file.
void set_launch_folder(const std::string& folder);
void leave_launch_folder();  // this rank reported an error itself (main's one line)

// world.cpp: start after MPI is up (collective: one MPI_Allgather over MPI_COMM_WORLD); stop
// before MPI_Finalize (tells rank 0 this rank has left training).
void start_fault_monitor();
void stop_fault_monitor();

// A fault this rank found on a thread of its own (NCCL's watchdog: a collective that never
// ends on the GPU), where no exception reaches the main thread: writes this rank's flight
// record, tells `runner launch` the rank spoke, releases the output folder (the exit hook),
// prints "runner: error: rank K: <line>; ..." once and ends every rank (MPI_Abort when MPI
// runs, else exit code 1).
[[noreturn]] void abort_job(const std::string& line);

// Where this rank is, in words: "at step 2, phase on_step_end; last collective #13 all_reduce
// (float32, 1 values, 4 B, completed)". Empty before training set a phase.
std::string fault_context();
// Writes this rank's flight record (when a folder is set) and returns its path ("" if none).
std::string dump_own_flight_record(const std::string& reason);

}  // namespace runner::dist
