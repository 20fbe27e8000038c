#include "runtime/cli/process_setup.h"

#include <malloc.h>
#include <sched.h>

#include <algorithm>

#include <ATen/Parallel.h>

namespace runner::cli {

int affinity_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  return std::max(1, CPU_COUNT(&set));
}

void setup_process(int local_world_size) {
  // Measured in docs/performance.md: fewer page faults per step, 5–9% faster steps.
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  at::set_num_threads(std::max(1, affinity_cpus() / std::max(1, local_world_size)));
}

}  // namespace runner::cli
