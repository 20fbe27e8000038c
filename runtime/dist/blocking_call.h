// A deadline for the blocking MPI calls outside the communicators' own ddp_timeout watchdog:
// set-up (communicator splits and duplicates, NCCL's bootstrap broadcast) and teardown
// (waiting out requests, MPI_Finalize, which waits for every rank). A rank stuck there past
// the timeout takes the whole job down with a line naming the call, instead of hanging.
#pragma once

namespace runner::dist {

class BlockingCall {
 public:
  // `what` must outlive the call (a literal). `mpi_usable`: false for MPI_Finalize, where the
  // watchdog exits the process instead of calling MPI_Abort.
  explicit BlockingCall(const char* what, bool mpi_usable = true);
  ~BlockingCall();
  BlockingCall(const BlockingCall&) = delete;
  BlockingCall& operator=(const BlockingCall&) = delete;
};

void set_blocking_timeout(double seconds);  // ddp_timeout; 1800 s until the arguments are known

}  // namespace runner::dist
