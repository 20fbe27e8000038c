// Process-wide settings made once at start-up, before any tensor work.
#pragma once

namespace runner::cli {

// Intra-op threads = CPUs in this process's affinity mask ÷ processes on the node (the mask
// itself in an srun step whose task is bound to its --cpus-per-task), and
// glibc heap thresholds raised so freed activation buffers are reused instead of being
// returned to the kernel and page-faulted back every step.
void setup_process(int local_world_size = 1);

}  // namespace runner::cli
