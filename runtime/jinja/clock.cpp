#include "runtime/jinja/clock.h"

#include <mutex>
#include <optional>

namespace runner::jinja {

namespace {
std::mutex g_mutex;
std::optional<std::time_t> g_time;
}  // namespace

void set_render_time(std::time_t t) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_time = t;
}

std::time_t render_time() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_time) g_time = std::time(nullptr);
  return *g_time;
}

}  // namespace runner::jinja
