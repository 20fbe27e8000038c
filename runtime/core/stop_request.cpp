#include "runtime/core/stop_request.h"

#include <atomic>
#include <mutex>

namespace runner {

namespace {
std::atomic<bool> requested{false};
std::atomic<bool> active{false};
// Written by the signal thread, which may run while the process exits: never destroyed.
struct Reason {
  std::mutex mu;
  std::string text;
};
Reason& reason_state() {
  static Reason* r = new Reason;
  return *r;
}
}  // namespace

void request_stop(const std::string& why) {
  {
    std::lock_guard<std::mutex> lock(reason_state().mu);
    reason_state().text = why;
  }
  requested.store(true, std::memory_order_release);
}

bool stop_requested() { return requested.load(std::memory_order_acquire); }

std::string stop_reason() {
  std::lock_guard<std::mutex> lock(reason_state().mu);
  return reason_state().text;
}

void clear_stop_request() {
  requested.store(false);
  std::lock_guard<std::mutex> lock(reason_state().mu);
  reason_state().text.clear();
}

void set_stop_point_active(bool a) { active.store(a, std::memory_order_release); }
bool stop_point_active() { return active.load(std::memory_order_acquire); }

}  // namespace runner
