#include "runtime/kernels/fused_switch.h"

#include <cstdlib>
#include <cstring>

namespace runner::kernels {

bool fused_kernels_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("RUNNER_FUSED_KERNELS");
    return !(v && std::strcmp(v, "0") == 0);
  }();
  return on;
}

}  // namespace runner::kernels
