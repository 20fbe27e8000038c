// MPI, CUDA and NCCL report failure as status codes. One check turns a bad status into a
// DistError naming the call, the library's own message and the source line.
#pragma once
#include <string>

#include "runtime/core/errors.h"

// `ok`: the library's success value; `message`: its status → text function.
#define RUNNER_STATUS_CHECK(call, ok, message)                                                                  \
  do {                                                                                                          \
    const auto status_ = (call);                                                                                \
    if (status_ != (ok))                                                                                        \
      throw ::runner::DistError(std::string(#call) + " failed: " + (message)(status_), __FILE__ ":" + std::to_string(__LINE__)); \
  } while (0)
