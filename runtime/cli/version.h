// `runner --version`: what this binary was built with and what it sees, one item a line.
#pragma once
#include <string>

namespace runner::cli {

// runner, LibTorch (and whether runner's CUDA code is in), CUDA with the visible GPUs,
// NCCL and MPI.
std::string version_report(const std::string& runner_version);

}  // namespace runner::cli
