// Out-of-memory errors as HF's auto_find_batch_size recognises them (accelerate's
// should_reduce_batch_size): CUDA's OutOfMemoryError and the CPU allocator's failure. And a
// fault injection for tests, since a CPU rarely runs out of memory on cue:
//   RUNNER_FAULT_OOM_BATCH_ABOVE=N   a training micro-batch of more than N examples fails
//                                    as the CPU allocator does
//   RUNNER_FAULT_OOM_RANK=R          ... only on rank R (default: every rank)
#pragma once
#include <cstdint>
#include <exception>
#include <string>

namespace runner::device {

bool is_out_of_memory(const std::exception& e);

// Throws the allocator's error when the injected limit says this batch does not fit.
void maybe_inject_out_of_memory(int64_t batch_rows, int rank);

}  // namespace runner::device
