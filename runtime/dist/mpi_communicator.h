// The MPI backend of Communicator (CPU tensors). Internal to runtime/dist: the rest of the
// runtime sees only Communicator.
#pragma once
#include <memory>

#include <mpi.h>

#include "runtime/dist/communicator.h"

namespace runner::dist {

// Collectives on `comm` (duplicated, so the trainer's traffic cannot mix with anyone
// else's). A watchdog thread aborts the whole job when one call waits longer than
// `timeout_seconds`: a dead or stuck peer must not hang the others forever.
std::shared_ptr<Communicator> make_mpi_communicator(MPI_Comm comm, double timeout_seconds);

}  // namespace runner::dist
