// The NCCL backend of Communicator, built whenever CMake finds CUDA with NCCL. It works on
// raw device pointers (tensor.data_ptr()), so it compiles against any LibTorch; it can only
// run on a CUDA LibTorch build with GPUs, where each rank drives the GPU of its local rank.
#pragma once
#include <memory>
#include <string>

#include <mpi.h>

#include "runtime/dist/communicator.h"

namespace runner::dist {

std::string nccl_library_version();  // "NCCL 2.28.3", from ncclGetVersion

// NCCL communicator over the ranks of `comm`, bootstrapped through MPI (rank 0's unique id is
// broadcast; MPI_COMM_NULL: one process on its own, no MPI needed). Selects CUDA device
// `local_rank` (within CUDA_VISIBLE_DEVICES). Collectives on device tensors are ordered on
// the GPU (the default stream waits for them; the host does not, except in barrier()); a
// watchdog thread ends the job (fault_monitor.h's abort_job) when one has not finished
// `timeout_seconds` after it was queued, or NCCL reports an error. Collectives on host
// tensors only go over MPI between the same ranks (a world of one: copies), never through
// the GPU.
std::shared_ptr<Communicator> make_nccl_communicator(MPI_Comm comm, int local_rank, double timeout_seconds);

}  // namespace runner::dist
