// Out-of-memory errors as HF's auto_find_batch_size recognises them (accelerate's
// should_reduce_batch_size): CUDA's OutOfMemoryError and the CPU allocator's failure. And a
// fault injection for tests, since a CPU rarely runs out of memory on cue:
//   RUNNER_FAULT_OOM_BATCH_ABOVE=N   a training micro-batch of more than N examples fails
//                                    as the CPU allocator does
//   RUNNER_FAULT_OOM_RANK=R          ... only on rank R (default: every rank)
//   RUNNER_FAULT_OOM_LOOP_BATCH_ABOVE=N  the same in the training loop's micro-steps only,
//                                    not in auto_find_batch_size's trial steps: a batch the
//                                    search found that then runs out in training; on a GPU a
//                                    real one (1 TiB asked of CUDA's caching allocator, which
//                                    frees its cache and raises its OutOfMemoryError)
#pragma once
#include <cstdint>
#include <exception>
#include <string>

#include <c10/core/Device.h>

namespace runner::device {

bool is_out_of_memory(const std::exception& e);
// Its message without LibTorch's C++ backtrace (c10::Error's what() carries one).
std::string error_message(const std::exception& e);
// The allocator's own first sentence ("CUDA out of memory", "DefaultCPUAllocator: can't
// allocate memory (...)"), wherever a wrapper (a recipe's file:line) put it.
std::string out_of_memory_summary(const std::exception& e);

// Throws the allocator's error when the injected limit says this batch does not fit.
void maybe_inject_out_of_memory(int64_t batch_rows, int rank);
// The same for RUNNER_FAULT_OOM_LOOP_BATCH_ABOVE (called by the training loop only).
void maybe_inject_out_of_memory_in_loop(int64_t batch_rows, int rank, const c10::Device& device);

}  // namespace runner::device
